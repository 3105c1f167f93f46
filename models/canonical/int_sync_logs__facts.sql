{{ config(materialized='view') }}

-- The rows of the fact files metadata/<org_id>/*.parquet the lake holds now, and a
-- `file_problem` row per fact file not read: the `fact_rows` of the run manifest's fact
-- folders (sync_logs.canonical.objects).
select
    fact.fact_table,
    fact.org_id,
    fact.id,
    fact.type,
    fact.name,
    fact.model_id,
    fact.business_object_id,
    fact.filter_segment_id,
    fact.cohort_id,
    fact.path,
    fact.file_modified_at,
    fact.row_index,
    fact.row_kind,
    fact.problem
from {{ ref('int_sync_logs__run_manifest') }}
lateral view inline(fact_rows) fact
