{#- Errors per day, sync and category, next to all attempts that day, for trend charts (from
    the per-run aggregates `int_sync_logs__error_rows` and `int_sync_logs__daily_attempts`). -#}

with errors as (
    select
        error_rows.sync_id,
        error_rows.attempted_on as error_date,
        categories.error_category,
        error_rows.failed_reason,
        error_rows.row_key,
        error_rows.num_attempts
    from {{ ref('int_sync_logs__error_rows') }} as error_rows
    left join {{ ref('int_sync_logs__error_categories') }} as categories
        on error_rows.failed_reason = categories.failed_reason
),

daily_attempts as (
    select
        sync_id,
        attempted_on,
        num_attempts as num_attempts_total
    from {{ ref('int_sync_logs__daily_attempts') }}
),

daily_errors as (
    select
        error_date,
        sync_id,
        error_category,
        cast(sum(num_attempts) as {{ dbt.type_bigint() }}) as num_attempts,
        count(distinct row_key) as num_rows,
        count(distinct failed_reason) as num_distinct_reasons
    from errors
    group by error_date, sync_id, error_category
)

select
    daily_errors.error_date,
    daily_errors.sync_id,
    daily_errors.error_category,
    daily_errors.num_attempts,
    daily_errors.num_rows,
    daily_errors.num_distinct_reasons,
    daily_attempts.num_attempts_total,
    cast(daily_errors.num_attempts as {{ sync_logs.type_double() }})
        / daily_attempts.num_attempts_total as error_rate
from daily_errors
inner join daily_attempts
    on daily_errors.sync_id = daily_attempts.sync_id
    and daily_errors.error_date = daily_attempts.attempted_on
