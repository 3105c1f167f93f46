{#- Most common errors across all syncs, ranked by attempts and by distinct rows. -#}

with errors as (
    select
        failed_reason,
        error_category,
        sync_id,
        row_key,
        attempted_at
    from {{ ref('int_sync_logs__error_attempts') }}
),

counted as (
    select
        failed_reason,
        error_category,
        count(*) as num_attempts,
        count(distinct row_key) as num_rows,
        count(distinct sync_id) as num_syncs,
        min(attempted_at) as first_seen_at,
        max(attempted_at) as last_seen_at
    from errors
    group by failed_reason, error_category
)

select
    failed_reason,
    error_category,
    num_attempts,
    num_rows,
    num_syncs,
    first_seen_at,
    last_seen_at,
    rank() over (order by num_attempts desc) as rank_by_attempts,
    rank() over (order by num_rows desc) as rank_by_rows
from counted
