{{ config(
    materialized='incremental',
    incremental_strategy='append',
    full_refresh=none if var('sync_logs_allow_history_rebuild') else false,
) }}
{#- One row per (sync, run, error message) with its attempts and distinct rows: what the
    incidents of kind `new_error_class` are computed from. Append-only history, like the
    changelog it summarises: an incremental build adds the runs it has no row for yet (new
    and late runs), and keeps the runs that retention (`prune_sync_logs`) has since pruned
    from the changelog, so that incidents stay as they were. A run's rows are written
    once: a run folder reloaded with other errors keeps its first summary until a full
    refresh (which rebuilds this model only when `sync_logs_allow_history_rebuild` is true,
    like the changelog). -#}

with summarised as (
    select
        sync_id,
        sync_run_id,
        min(run_started_at) as run_started_at,
        failed_reason,
        cast(sum(num_attempts) as {{ dbt.type_bigint() }}) as num_attempts,
        count(distinct row_key) as num_rows
    from {{ ref('int_sync_logs__error_rows') }}
    group by sync_id, sync_run_id, failed_reason
)

select
    summarised.sync_id,
    summarised.sync_run_id,
    summarised.run_started_at,
    summarised.failed_reason,
    summarised.num_attempts,
    summarised.num_rows
from summarised
{%- if is_incremental() %}
where not exists (
    select 1
    from {{ this }} as kept
    where kept.sync_id = summarised.sync_id
        and kept.sync_run_id = summarised.sync_run_id
)
{%- endif %}
