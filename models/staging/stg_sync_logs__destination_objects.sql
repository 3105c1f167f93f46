{#- One row per destination object (e.g. a Salesforce Contact). Empty in mode `hightouch`. -#}
{%- set mode = sync_logs.source_mode() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}

{% if mode == 'hightouch' %}
select
    cast(null as {{ bigint }}) as destination_object_id,
    cast(null as {{ string }}) as destination_object_type,
    cast(null as {{ string }}) as destination_object_name
where 1 = 0
{% else %}
select
    cast(id as {{ bigint }}) as destination_object_id,
    cast(type as {{ string }}) as destination_object_type,
    cast(name as {{ string }}) as destination_object_name
from {{ source('sync_logs_census', 'destination_objects') if mode == 'census' else sync_logs.canonical_relation('destination_objects') }}
{% endif %}
