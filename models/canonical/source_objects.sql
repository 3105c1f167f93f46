{{ config(materialized='view') }}

-- One row per source object id: the latest fact file holding the id wins (file modification
-- time, then path); ids that only run metadata names yet (the fact files lag behind runs) come
-- from the most recent run naming them (name = source.object_name, model_id = the run's
-- model_id, type unknown until the fact file arrives), with record_source = 'run_metadata'.
with fact_rows as (
    select
        id,
        type,
        name,
        model_id,
        business_object_id,
        filter_segment_id,
        cohort_id,
        org_id,
        file_modified_at,
        path
    from {{ ref('int_sync_logs__facts') }}
    where row_kind = 'row' and fact_table = 'source_objects' and id is not null
),

from_fact_files as (
    select
        id,
        max_by(
            struct(
                type, name, model_id, business_object_id, filter_segment_id, cohort_id, org_id
            ),
            struct(file_modified_at, path)
        ) as latest
    from fact_rows
    group by id
),

from_run_metadata as (
    select
        source_object_id as id,
        max_by(
            struct(
                cast(null as string) as type,
                source_object_name as name,
                model_id,
                cast(null as bigint) as business_object_id,
                cast(null as bigint) as filter_segment_id,
                cast(null as bigint) as cohort_id,
                org_id
            ),
            struct(sync_run_started_at, sync_run_id)
        ) as latest
    from {{ ref('int_sync_logs__run_manifest') }}
    where is_valid and source_object_id is not null
    group by source_object_id
),

unioned as (
    select
        id,
        latest,
        'fact_file' as record_source
    from from_fact_files
    union all
    select
        meta.id,
        meta.latest,
        'run_metadata' as record_source
    from from_run_metadata as meta
    left join from_fact_files as facts on meta.id = facts.id
    where facts.id is null
)

select
    id,
    latest.type as type,
    latest.name as name,
    latest.model_id as model_id,
    latest.business_object_id as business_object_id,
    latest.filter_segment_id as filter_segment_id,
    latest.cohort_id as cohort_id,
    latest.org_id as org_id,
    record_source
from unioned
