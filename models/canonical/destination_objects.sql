{{ config(materialized='view') }}

-- One row per destination object id: the latest fact file holding the id wins (file modification
-- time, then path); ids that only run metadata names yet (the fact files lag behind runs) come
-- from the most recent run naming them, with record_source = 'run_metadata'.
with fact_rows as (
    select
        id,
        type,
        name,
        org_id,
        file_modified_at,
        path
    from {{ ref('int_sync_logs__facts') }}
    where row_kind = 'row' and fact_table = 'destination_objects' and id is not null
),

from_fact_files as (
    select
        id,
        max_by(struct(type, name, org_id), struct(file_modified_at, path)) as latest
    from fact_rows
    group by id
),

from_run_metadata as (
    select
        destination_object_id as id,
        max_by(
            struct(destination_object_type as type, destination_object_name as name, org_id),
            struct(sync_run_started_at, sync_run_id)
        ) as latest
    from {{ ref('int_sync_logs__run_manifest') }}
    where is_valid and destination_object_id is not null
    group by destination_object_id
)

select
    id,
    latest.type as type,
    latest.name as name,
    latest.org_id as org_id,
    'fact_file' as record_source
from from_fact_files
union all
select
    meta.id,
    meta.latest.type as type,
    meta.latest.name as name,
    meta.latest.org_id as org_id,
    'run_metadata' as record_source
from from_run_metadata as meta
left join from_fact_files as facts on meta.id = facts.id
where facts.id is null
