{{ config(materialized='view') }}

-- The build's plan, one row per run whose rows it writes or clears, with the action.
-- load: a run of int_sync_logs__runs_to_load (new, changed folder, or not yet committed).
-- clear: a committed run whose folder is still in the lake but is no longer valid: its rows
--   leave sync_changelog and sync_runs, as a full rebuild would not load it.
-- recompute: a committed run of a touched sync at or after the sync's cutoff: its rows stay
--   but their op_type / payload_changed and the run's counters are derived again.
-- A sync's cutoff is the earliest (started_at, run id) among its loaded runs (new position)
-- and its changed or cleared committed runs (committed position). Runs before the cutoff are
-- not touched: with runs arriving in order the plan holds only the new runs, whatever the
-- history. Committed runs whose folder has left the lake keep their rows (history outlives
-- the lake). A view, like runs_to_load: its inputs do not change during the build.
with

loading as (
    select
        sync_id,
        sync_run_id,
        sync_run_started_at
    from {{ ref('int_sync_logs__runs_to_load') }}
),

committed as (
    select
        sync_id,
        sync_run_id,
        sync_run_started_at,
        manifest_version
    from {{ ref('int_sync_logs__committed_runs') }}
),

manifest as (
    select
        sync_id,
        sync_run_id,
        manifest_version,
        is_valid
    from {{ ref('int_sync_logs__run_manifest') }}
),

-- committed runs whose folder is in the lake with another version, or invalid
superseded as (
    select
        committed.sync_id,
        committed.sync_run_id,
        committed.sync_run_started_at
    from committed
    left semi join manifest as in_lake
        on
            committed.sync_id = in_lake.sync_id
            and committed.sync_run_id = in_lake.sync_run_id
    left anti join manifest as current_version
        on
            committed.sync_id = current_version.sync_id
            and committed.sync_run_id = current_version.sync_run_id
            and committed.manifest_version = current_version.manifest_version
            and current_version.is_valid
),

cutoffs as (
    select
        positions.sync_id,
        min(struct(positions.sync_run_started_at, positions.sync_run_id)) as cutoff
    from (
        select
            loading.sync_id,
            loading.sync_run_id,
            loading.sync_run_started_at
        from loading
        union all
        select
            superseded.sync_id,
            superseded.sync_run_id,
            superseded.sync_run_started_at
        from superseded
    ) as positions
    group by positions.sync_id
),

plan as (
    select
        loading.sync_id,
        loading.sync_run_id,
        loading.sync_run_started_at,
        'load' as action,
        superseded.sync_id is not null as is_superseded
    from loading
    left join superseded
        on
            loading.sync_id = superseded.sync_id
            and loading.sync_run_id = superseded.sync_run_id

    union all

    select
        superseded.sync_id,
        superseded.sync_run_id,
        superseded.sync_run_started_at,
        'clear' as action,
        true as is_superseded
    from superseded
    left anti join loading
        on
            superseded.sync_id = loading.sync_id
            and superseded.sync_run_id = loading.sync_run_id

    union all

    select
        committed.sync_id,
        committed.sync_run_id,
        committed.sync_run_started_at,
        'recompute' as action,
        false as is_superseded
    from committed
    inner join cutoffs
        on committed.sync_id = cutoffs.sync_id
    left anti join superseded
        on
            committed.sync_id = superseded.sync_id
            and committed.sync_run_id = superseded.sync_run_id
    left anti join loading
        on
            committed.sync_id = loading.sync_id
            and committed.sync_run_id = loading.sync_run_id
    where struct(committed.sync_run_started_at, committed.sync_run_id) >= cutoffs.cutoff
)

select
    plan.sync_id,
    plan.sync_run_id,
    plan.sync_run_started_at,
    plan.action,
    plan.is_superseded,
    cutoffs.cutoff.sync_run_started_at as cutoff_started_at,
    cutoffs.cutoff.sync_run_id as cutoff_sync_run_id
from plan
inner join cutoffs
    on plan.sync_id = cutoffs.sync_id
