{#- Most common errors across all syncs, ranked by attempts and by distinct rows (from the
    per-run error aggregate `int_sync_logs__error_rows`). -#}

with errors as (
    select
        error_rows.failed_reason,
        error_rows.sync_id,
        error_rows.row_key,
        error_rows.num_attempts,
        error_rows.first_attempted_at,
        error_rows.last_attempted_at,
        categories.error_category
    from {{ ref('int_sync_logs__error_rows') }} as error_rows
    left join {{ ref('int_sync_logs__error_categories') }} as categories
        on error_rows.failed_reason = categories.failed_reason
),

counted as (
    select
        failed_reason,
        error_category,
        cast(sum(num_attempts) as {{ dbt.type_bigint() }}) as num_attempts,
        count(distinct row_key) as num_rows,
        count(distinct sync_id) as num_syncs,
        min(first_attempted_at) as first_seen_at,
        max(last_attempted_at) as last_seen_at
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
