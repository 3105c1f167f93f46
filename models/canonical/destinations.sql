{{ config(materialized='view') }}

-- One row per destination id: the destinations of int_sync_logs__objects
-- (sync_logs.canonical.objects decides which candidate wins).
select
    objects.id,
    objects.type,
    objects.name,
    objects.org_id,
    objects.record_source
from {{ ref('int_sync_logs__objects') }} as objects
where objects.object_kind = 'destinations'
