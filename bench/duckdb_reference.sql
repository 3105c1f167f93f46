-- The reference for bench/scale.py: the changelog, snapshot and per-run counters of
-- spec/output-tables.md, written as plain DuckDB SQL over the lake's parquet files and
-- metadata.json, as a user without the sync_logs package would write them. No incremental
-- logic: every call recomputes everything from the whole lake.
-- bench/duckdb_reference.py replaces ${LAKE} (the lake root) and ${OUT} (a folder) and runs it.
-- Valid lakes only: runs are kept when metadata.json parses and agrees with the folder's ids,
-- but the other bad inputs of the input contract (corrupt files, files lacking columns, ...)
-- are not handled here.

set timezone = 'UTC';

-- One row per valid run: metadata.json in any writer's spelling (spec keys, camelCase,
-- sync_configuration_id, completed_at); run_seq orders the runs of a sync.
create temp table runs as
with docs as (
    select
        regexp_extract(
            filename,
            '/sync_tracking_datasets/([0-9]+)/([0-9]+)/([0-9]+)/metadata\.json$',
            ['org', 'sync', 'run']
        ) as ids,
        try_cast(content as json) as j
    from read_text('${LAKE}/sync_tracking_datasets/*/*/*/metadata.json')
),

parsed as (
    select
        try_cast(ids.org as bigint) as org_id,
        try_cast(ids.sync as bigint) as sync_id,
        try_cast(ids.run as bigint) as sync_run_id,
        try_cast(coalesce(j ->> 'organization_id', j ->> 'organizationId') as bigint)
            as meta_org_id,
        try_cast(coalesce(
            j ->> 'sync_id', j ->> 'syncId',
            j ->> 'sync_configuration_id', j ->> 'syncConfigurationId'
        ) as bigint) as meta_sync_id,
        try_cast(coalesce(j ->> 'sync_run_id', j ->> 'syncRunId') as bigint) as meta_sync_run_id,
        try_cast(coalesce(j ->> 'workspace_id', j ->> 'workspaceId') as bigint) as workspace_id,
        try_cast(coalesce(j ->> 'sync_run_started_at', j ->> 'syncRunStartedAt') as timestamptz)
            as started_at,
        try_cast(coalesce(
            j ->> 'sync_run_finished_at', j ->> 'syncRunFinishedAt',
            j ->> 'completed_at', j ->> 'completedAt'
        ) as timestamptz) as finished_at,
        coalesce(j ->> 'sync_run_status', j ->> 'syncRunStatus') as status,
        coalesce(j ->> 'sync_run_error', j ->> 'syncRunError') as error,
        j ->> 'behavior' as behavior,
        coalesce(j ->> 'primary_key', j ->> 'primaryKey') as primary_key,
        coalesce(j ->> 'model_name', j ->> 'modelName') as model_name,
        try_cast(coalesce(j ->> 'model_id', j ->> 'modelId') as bigint) as model_id,
        coalesce(j ->> 'split_group', j ->> 'splitGroup') as split_group,
        try_cast(j -> 'source' ->> 'id' as bigint) as source_id,
        try_cast(coalesce(j -> 'source' ->> 'object_id', j -> 'source' ->> 'objectId') as bigint)
            as source_object_id,
        j -> 'destination' ->> 'type' as destination,
        try_cast(j -> 'destination' ->> 'id' as bigint) as destination_id,
        try_cast(coalesce(
            j -> 'destination' ->> 'object_id', j -> 'destination' ->> 'objectId'
        ) as bigint) as destination_object_id
    from docs
)

select
    * exclude (meta_org_id, meta_sync_id, meta_sync_run_id),
    dense_rank() over (partition by sync_id order by started_at, sync_run_id) as run_seq
from parsed
where
    meta_org_id = org_id
    and meta_sync_id = sync_id
    and meta_sync_run_id = sync_run_id
    and started_at is not null;

-- One row per record attempt: raw records of the valid runs, exact re-deliveries folded
-- (first copy in file order kept), status mapped, op_type by the four rules in order
-- against the row's last succeeded state in an earlier run of its sync, payload_changed.
create temp table changelog as
with raw as (
    select
        regexp_extract(
            filename,
            '/sync_tracking_datasets/([0-9]+)/([0-9]+)/([0-9]+)/([^/]+)$',
            ['org', 'sync', 'run', 'file']
        ) as f,
        file_row_number,
        identifier,
        record_payload,
        operation,
        status,
        status_message,
        batch_started_at,
        batch_ended_at
    from read_parquet(
        '${LAKE}/sync_tracking_datasets/*/*/*/*.parquet',
        filename = true, file_row_number = true, union_by_name = true
    )
),

records as (
    select
        try_cast(f.org as bigint) as org_id,
        try_cast(f.sync as bigint) as sync_id,
        try_cast(f.run as bigint) as sync_run_id,
        f.file as batch_file,
        regexp_extract(f.file, '^(.+?)(\.([0-9]{1,9}))?\.parquet$', 1) as batch_type,
        try_cast(
            nullif(regexp_extract(f.file, '^(.+?)(\.([0-9]{1,9}))?\.parquet$', 3), '') as integer
        ) as batch_number,
        file_row_number as batch_row_index,
        identifier,
        record_payload,
        operation,
        status,
        status_message,
        batch_started_at,
        batch_ended_at
    from raw
),

folded as (
    select
        sync_id,
        sync_run_id,
        identifier,
        record_payload,
        operation,
        status,
        arg_min(
            {
                org_id: org_id,
                status_message: status_message,
                batch_started_at: batch_started_at,
                batch_ended_at: batch_ended_at,
                batch_file: batch_file,
                batch_type: batch_type,
                batch_number: batch_number,
                batch_row_index: batch_row_index
            },
            (
                batch_started_at is null,
                coalesce(batch_started_at, timestamptz '1970-01-01 00:00:00+00'),
                batch_type,
                coalesce(batch_number, -1),
                batch_row_index
            )
        ) as first_copy,
        count(*) - 1 as redelivery_count
    from records
    group by sync_id, sync_run_id, identifier, record_payload, operation, status
),

attempts as (
    select
        f.first_copy.org_id as org_id,
        f.sync_id,
        f.sync_run_id,
        f.identifier as row_id,
        case
            when f.status is null or trim(f.status) = '' then 'aborted'
            when lower(trim(f.status)) = 'succeeded' then 'succeeded'
            when lower(trim(f.status)) = 'rejected' then 'failed'
            when lower(trim(f.status)) in ('null', 'duplicate') then 'invalid'
            else 'failed'
        end as status,
        case
            when f.status is null or trim(f.status) = '' then r.error
            when lower(trim(f.status)) = 'succeeded' then null
            when lower(trim(f.status)) = 'rejected' then f.first_copy.status_message
            when lower(trim(f.status)) = 'null' then 'null identifier'
            when lower(trim(f.status)) = 'duplicate' then 'duplicate identifier'
            else coalesce(f.first_copy.status_message, 'unknown status: ' || f.status)
        end as failed_reason,
        case
            when json_valid(f.record_payload) and json_type(f.record_payload) = 'OBJECT'
                then f.record_payload
        end as fields,
        f.record_payload,
        r.split_group,
        f.operation,
        f.status as raw_status,
        f.first_copy.batch_started_at as batch_started_at,
        f.first_copy.batch_ended_at as batch_ended_at,
        f.first_copy.batch_file as batch_file,
        f.first_copy.batch_type as batch_type,
        f.first_copy.batch_number as batch_number,
        f.first_copy.batch_row_index as batch_row_index,
        f.redelivery_count,
        r.started_at as sync_run_started_at,
        r.run_seq,
        -- rules 1 and 2 need no history
        case
            when f.identifier is null then null
            when lower(f.operation) = 'append' or lower(r.behavior) = 'append' then 'added'
            when lower(f.operation) = 'delete' then 'removed'
        end as base_op
    from folded as f
    inner join runs as r on f.sync_id = r.sync_id and f.sync_run_id = r.sync_run_id
),

-- the last succeeded attempt of each row in each run: removed or not, and its payload
run_states as (
    select
        sync_id,
        row_id,
        run_seq,
        arg_max(
            {is_removed: coalesce(base_op = 'removed', false), payload: record_payload},
            (
                batch_started_at is null,
                coalesce(batch_started_at, timestamptz '1970-01-01 00:00:00+00'),
                batch_type,
                coalesce(batch_number, -1),
                batch_row_index
            )
        ) as state
    from attempts
    where status = 'succeeded' and row_id is not null
    group by sync_id, row_id, run_seq
),

-- each attempt with the state of the row's latest earlier run that has one
with_previous as (
    select
        a.*,
        p.state as previous
    from attempts as a
    asof left join run_states as p
        on a.sync_id = p.sync_id and a.row_id = p.row_id and a.run_seq > p.run_seq
),

typed as (
    select
        *,
        case
            when row_id is null then null
            when base_op is not null then base_op
            when previous is null or previous.is_removed then 'added'
            else 'changed'
        end as op_type
    from with_previous
)

select
    org_id,
    sync_id,
    sync_run_id,
    op_type,
    row_id,
    status,
    failed_reason,
    fields,
    split_group,
    operation,
    raw_status,
    case
        when op_type is null then null
        when op_type = 'added' then true
        when op_type = 'removed' then false
        else previous.payload is distinct from record_payload
    end as payload_changed,
    batch_started_at,
    batch_ended_at,
    batch_file,
    sync_run_started_at,
    batch_type,
    batch_number,
    batch_row_index,
    redelivery_count
from typed;

-- Latest state of every row per sync; `unchanged` when the row was not in the sync's most
-- recent run; rows whose latest attempt is a succeeded removal are absent, a removal that did
-- not succeed reads `changed` (the row is still in the destination).
create temp table snapshot as
with latest_runs as (
    select
        sync_id,
        arg_max(sync_run_id, (started_at, sync_run_id)) as latest_sync_run_id
    from runs
    group by sync_id
),

rows as (
    select
        sync_id,
        row_id,
        arg_max(
            {
                sync_run_id: sync_run_id,
                op_type: op_type,
                status: status,
                failed_reason: failed_reason,
                fields: fields,
                split_group: split_group,
                attempted_at: coalesce(batch_started_at, sync_run_started_at)
            },
            (
                sync_run_started_at,
                sync_run_id,
                batch_started_at is null,
                coalesce(batch_started_at, timestamptz '1970-01-01 00:00:00+00'),
                batch_type,
                coalesce(batch_number, -1),
                batch_row_index
            )
        ) as latest,
        max(coalesce(batch_ended_at, batch_started_at, sync_run_started_at))
            filter (where status = 'succeeded') as last_succeeded_at,
        min(coalesce(batch_ended_at, batch_started_at, sync_run_started_at))
            filter (where status = 'succeeded' and op_type = 'added') as first_added_at
    from changelog
    where row_id is not null
    group by sync_id, row_id
)

select
    r.sync_id,
    r.latest.sync_run_id as sync_run_id,
    case
        when r.latest.sync_run_id is distinct from l.latest_sync_run_id then 'unchanged'
        when r.latest.op_type = 'removed' then 'changed'
        else r.latest.op_type
    end as op_type,
    r.row_id,
    r.latest.status as status,
    r.latest.failed_reason as failed_reason,
    r.latest.fields as fields,
    r.latest.split_group as split_group,
    r.latest.attempted_at as last_attempted_at,
    r.last_succeeded_at,
    r.first_added_at
from rows as r
left join latest_runs as l on r.sync_id = l.sync_id
where not (r.latest.op_type = 'removed' and r.latest.status = 'succeeded');

-- One row per valid run (zero-record runs too): metadata and counters.
create temp table run_counters as
with counts as (
    select
        sync_id,
        sync_run_id,
        count(case when op_type = 'added' and status != 'invalid' then 1 end) as num_planned_add,
        count(case when op_type = 'changed' and status != 'invalid' then 1 end)
            as num_planned_change,
        count(case when op_type = 'removed' and status != 'invalid' then 1 end)
            as num_planned_remove,
        count(case when op_type = 'added' and status in ('succeeded', 'failed') then 1 end)
            as num_attempted_add,
        count(case when op_type = 'changed' and status in ('succeeded', 'failed') then 1 end)
            as num_attempted_change,
        count(case when op_type = 'removed' and status in ('succeeded', 'failed') then 1 end)
            as num_attempted_remove,
        count(case when op_type = 'added' and status = 'succeeded' then 1 end)
            as num_succeeded_add,
        count(case when op_type = 'changed' and status = 'succeeded' then 1 end)
            as num_succeeded_change,
        count(case when op_type = 'removed' and status = 'succeeded' then 1 end)
            as num_succeeded_remove,
        count(case when op_type = 'added' and status = 'failed' then 1 end) as num_failed_add,
        count(case when op_type = 'changed' and status = 'failed' then 1 end)
            as num_failed_change,
        count(case when op_type = 'removed' and status = 'failed' then 1 end)
            as num_failed_remove,
        count(case when status = 'invalid' then 1 end) as num_invalid,
        count(*) as num_changelog_rows,
        sum(redelivery_count + 1) as num_records
    from changelog
    group by sync_id, sync_run_id
)

select
    r.sync_id,
    r.sync_run_id,
    r.org_id,
    r.workspace_id,
    r.primary_key,
    r.destination,
    r.model_name,
    r.model_id,
    r.status,
    r.error,
    r.started_at,
    r.finished_at,
    r.behavior,
    r.split_group,
    r.source_id,
    r.source_object_id,
    r.destination_id,
    r.destination_object_id,
    coalesce(c.num_planned_add, 0) as num_planned_add,
    coalesce(c.num_planned_change, 0) as num_planned_change,
    coalesce(c.num_planned_remove, 0) as num_planned_remove,
    coalesce(c.num_attempted_add, 0) as num_attempted_add,
    coalesce(c.num_attempted_change, 0) as num_attempted_change,
    coalesce(c.num_attempted_remove, 0) as num_attempted_remove,
    coalesce(c.num_succeeded_add, 0) as num_succeeded_add,
    coalesce(c.num_succeeded_change, 0) as num_succeeded_change,
    coalesce(c.num_succeeded_remove, 0) as num_succeeded_remove,
    coalesce(c.num_failed_add, 0) as num_failed_add,
    coalesce(c.num_failed_change, 0) as num_failed_change,
    coalesce(c.num_failed_remove, 0) as num_failed_remove,
    coalesce(c.num_invalid, 0) as num_invalid,
    coalesce(c.num_records, 0) - coalesce(c.num_changelog_rows, 0) as num_redelivered,
    coalesce(c.num_records, 0) as num_records
from runs as r
left join counts as c on r.sync_id = c.sync_id and r.sync_run_id = c.sync_run_id;

copy changelog to '${OUT}/changelog.parquet' (format parquet);
copy snapshot to '${OUT}/snapshot.parquet' (format parquet);
copy run_counters to '${OUT}/runs.parquet' (format parquet);
