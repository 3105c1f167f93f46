{#- One row per destination connection. Empty in mode `hightouch` (no such table). -#}
{%- set mode = sync_logs.source_mode() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}

{% if mode == 'hightouch' %}
select
    cast(null as {{ bigint }}) as destination_id,
    cast(null as {{ string }}) as destination_type,
    cast(null as {{ string }}) as destination_name
where 1 = 0
{% else %}
select
    cast(id as {{ bigint }}) as destination_id,
    cast(type as {{ string }}) as destination_type,
    cast(name as {{ string }}) as destination_name
from {{ source('sync_logs_census', 'destinations') if mode == 'census' else sync_logs.canonical_relation('destinations') }}
{% endif %}
