{#- Most common errors of each sync, ranked within the sync by attempts and by distinct rows. -#}

with errors as (
    select
        sync_id,
        failed_reason,
        error_category,
        row_key,
        attempted_at
    from {{ ref('int_sync_logs__error_attempts') }}
),

syncs as (
    select
        sync_id,
        model_name,
        destination
    from {{ ref('int_sync_logs__syncs') }}
),

counted as (
    select
        sync_id,
        failed_reason,
        error_category,
        count(*) as num_attempts,
        count(distinct row_key) as num_rows,
        min(attempted_at) as first_seen_at,
        max(attempted_at) as last_seen_at
    from errors
    group by sync_id, failed_reason, error_category
)

select
    counted.sync_id,
    syncs.model_name,
    syncs.destination,
    counted.failed_reason,
    counted.error_category,
    counted.num_attempts,
    counted.num_rows,
    counted.first_seen_at,
    counted.last_seen_at,
    rank() over (partition by counted.sync_id order by counted.num_attempts desc) as rank_by_attempts,
    rank() over (partition by counted.sync_id order by counted.num_rows desc) as rank_by_rows
from counted
left join syncs
    on counted.sync_id = syncs.sync_id
