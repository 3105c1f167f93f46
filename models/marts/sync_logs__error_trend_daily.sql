{#- Errors per day, sync and category, next to all attempts that day, for trend charts. -#}

with attempts as (
    select
        sync_id,
        cast(attempted_at as date) as attempted_on
    from {{ ref('int_sync_logs__attempts') }}
),

errors as (
    select
        sync_id,
        cast(attempted_at as date) as error_date,
        error_category,
        failed_reason,
        row_key
    from {{ ref('int_sync_logs__error_attempts') }}
),

daily_attempts as (
    select
        sync_id,
        attempted_on,
        count(*) as num_attempts_total
    from attempts
    group by sync_id, attempted_on
),

daily_errors as (
    select
        error_date,
        sync_id,
        error_category,
        count(*) as num_attempts,
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
