{#- Most common errors of each sync, ranked within the sync by attempts and by distinct rows. -#}

with errors as (
    select
        error_rows.sync_id,
        error_rows.failed_reason,
        error_rows.row_key,
        error_rows.num_attempts,
        error_rows.first_attempted_at,
        error_rows.last_attempted_at,
        categories.error_category
    from {{ ref('int_sync_logs__error_rows') }} as error_rows
    left join {{ ref('int_sync_logs__error_categories') }} as categories
        on error_rows.failed_reason = categories.failed_reason
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
        cast(sum(num_attempts) as {{ dbt.type_bigint() }}) as num_attempts,
        count(distinct row_key) as num_rows,
        min(first_attempted_at) as first_seen_at,
        max(last_attempted_at) as last_seen_at
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
