{{ config(materialized='view') }}
{#- Every record attempt with its run (joined on the run's full key, sync_id and
    sync_run_id: sync_id alone would repeat each attempt once per run of the sync) and the
    names of its model and destination. `attempted_at` is when the batch was sent, or the
    run's start where the source has no batch times (Hightouch). A view of keys and states
    without the payload: the sync-scoped models read the syncs they rewrite through it
    (`in_changed_syncs`), which reaches the changelog's `sync_id` partitions. -#}

with changelog as (
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        op_type,
        status,
        failed_reason,
        split_group,
        payload_changed,
        batch_started_at
    from {{ ref('stg_sync_logs__sync_changelog') }}
),

runs as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        status,
        model_id,
        model_name,
        destination,
        destination_id,
        destination_object_id,
        source_object_id
    from {{ ref('stg_sync_logs__sync_runs') }}
),

source_objects as (
    select
        source_object_id,
        source_object_name
    from {{ ref('stg_sync_logs__source_objects') }}
),

destinations as (
    select
        destination_id,
        destination_type,
        destination_name
    from {{ ref('stg_sync_logs__destinations') }}
),

destination_objects as (
    select
        destination_object_id,
        destination_object_name
    from {{ ref('stg_sync_logs__destination_objects') }}
)

select
    changelog.log_id,
    changelog.sync_id,
    changelog.sync_run_id,
    changelog.row_id,
    changelog.op_type,
    changelog.status,
    changelog.failed_reason,
    changelog.split_group,
    changelog.payload_changed,
    coalesce(changelog.batch_started_at, runs.started_at) as attempted_at,
    runs.started_at as run_started_at,
    runs.finished_at as run_finished_at,
    runs.status as run_status,
    runs.model_id,
    coalesce(runs.model_name, source_objects.source_object_name) as model_name,
    coalesce(runs.destination, destinations.destination_type) as destination,
    runs.destination_id,
    destinations.destination_name,
    runs.destination_object_id,
    destination_objects.destination_object_name
from changelog
inner join runs
    on changelog.sync_id = runs.sync_id
    and changelog.sync_run_id = runs.sync_run_id
left join source_objects
    on runs.source_object_id = source_objects.source_object_id
left join destinations
    on runs.destination_id = destinations.destination_id
left join destination_objects
    on runs.destination_object_id = destination_objects.destination_object_id
