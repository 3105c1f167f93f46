{{ config(materialized='view') }}

-- One row per source object id: the source_objects of int_sync_logs__objects
-- (sync_logs.canonical.objects decides which candidate wins).
select
    objects.id,
    objects.type,
    objects.name,
    objects.model_id,
    objects.business_object_id,
    objects.filter_segment_id,
    objects.cohort_id,
    objects.org_id,
    objects.record_source
from {{ ref('int_sync_logs__objects') }} as objects
where objects.object_kind = 'source_objects'
