{{ config(materialized='view') }}
{#- Attempts that ended in an error with a reason (destination rejections, invalid
    identifiers, aborted runs with an error), each with its error category. A view, for
    queries of single attempts: the marts read the per-run aggregate `int_sync_logs__error_rows`. -#}

with attempts as (
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        status,
        failed_reason,
        attempted_at,
        run_started_at,
        model_name,
        destination,
        destination_id,
        destination_name
    from {{ ref('int_sync_logs__attempts') }}
    where status in ('failed', 'invalid', 'aborted')
        and failed_reason is not null
),

categories as (
    select
        failed_reason,
        error_category
    from {{ ref('int_sync_logs__error_categories') }}
)

select
    attempts.log_id,
    attempts.sync_id,
    attempts.sync_run_id,
    attempts.row_id,
    case
        when attempts.row_id is not null
            then {{ dbt.concat(["cast(attempts.sync_id as " ~ dbt.type_string() ~ ")", "'|'", "attempts.row_id"]) }}
    end as row_key,
    attempts.status,
    attempts.failed_reason,
    categories.error_category,
    attempts.attempted_at,
    attempts.run_started_at,
    attempts.model_name,
    attempts.destination,
    attempts.destination_id,
    attempts.destination_name
from attempts
left join categories
    on attempts.failed_reason = categories.failed_reason
