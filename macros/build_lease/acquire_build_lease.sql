{#- on-run-start: one build at a time per target schema on a shared Spark warehouse. Writes this
    invocation's lease row, then reads back the earliest unexpired one: this build holds the
    schema when that row is its own; otherwise it removes its row and, up to var
    `sync_logs_lock_wait_seconds` (0: at once), tries again, then fails naming the holder. A
    lease expires after var `sync_logs_build_lease_seconds` (a killed build cannot release
    its own); the build that takes the lease removes the expired rows. Released by
    `release_build_lease` (on-run-end). -#}
{% macro acquire_build_lease(lease_id=none) %}
    {%- if not execute or not sync_logs.uses_build_lease() -%}
        {{ return('') }}
    {%- endif -%}
    {%- set lease = sync_logs.build_lease_relation() -%}
    {%- set lease_id = lease_id or invocation_id -%}
    {%- set wait_seconds = var('sync_logs_lock_wait_seconds') | float -%}
    {%- set lease_seconds = var('sync_logs_build_lease_seconds') | int -%}
    {%- set holder = "host " ~ env_var('HOSTNAME', 'unknown') ~ ", started at "
        ~ run_started_at.strftime('%Y-%m-%d %H:%M:%S') ~ " UTC, dbt invocation " ~ lease_id -%}
    {% do sync_logs.build_lease_create(lease) %}
    {%- set started = modules.datetime.datetime.now() -%}
    {%- set state = namespace(holder=none, waiting=false) -%}
    {%- for attempt in range(10000) -%}
        {% call statement('sync_logs_build_lease_insert') %}
            insert into {{ lease }}
            select
                '{{ dbt.escape_single_quotes(holder) }}' as holder,
                current_timestamp() as acquired_at,
                current_timestamp() + make_interval(0, 0, 0, 0, 0, 0, {{ lease_seconds }}) as expires_at,
                '{{ dbt.escape_single_quotes(lease_id) }}' as lease_id
        {% endcall %}
        {%- set earliest = run_query(
            "select lease_id, holder from " ~ lease ~ " where expires_at > current_timestamp()"
            ~ " order by acquired_at, lease_id limit 1") -%}
        {%- if earliest.rows | length > 0 and earliest.rows[0][0] == lease_id -%}
            {#- read again once any insert started before this one has committed -#}
            {%- do sync_logs.build_lease_pause() -%}
            {%- set earliest = run_query(
                "select lease_id, holder from " ~ lease ~ " where expires_at > current_timestamp()"
                ~ " order by acquired_at, lease_id limit 1") -%}
        {%- endif -%}
        {%- if earliest.rows | length > 0 and earliest.rows[0][0] == lease_id -%}
            {#- expired leases (killed builds') are removed by the build that holds the schema -#}
            {%- set expired = run_query(
                "select lease_id, holder from " ~ lease ~ " where expires_at <= current_timestamp()") -%}
            {%- for row in expired.rows -%}
                {{ log("sync_logs: removing the expired build lease of " ~ row[1] ~ " (" ~ lease ~ ")", info=true) }}
                {%- do sync_logs.build_lease_remove(lease, row[0]) -%}
            {%- endfor -%}
            {{ log("sync_logs: this build holds " ~ lease ~ " (" ~ holder ~ ")"
                ~ (", after waiting" if state.waiting else ""), info=true) }}
            {{ return('') }}
        {%- endif -%}
        {%- set state.holder = earliest.rows[0][1] if earliest.rows | length > 0 else 'a build' -%}
        {%- do sync_logs.build_lease_remove(lease, lease_id) -%}
        {%- set elapsed = (modules.datetime.datetime.now() - started).total_seconds() -%}
        {%- if elapsed >= wait_seconds -%}
            {%- break -%}
        {%- endif -%}
        {%- if not state.waiting -%}
            {{ log("sync_logs: " ~ lease ~ " is held by another build (" ~ state.holder
                ~ "); waiting up to " ~ wait_seconds ~ " s", info=true) }}
            {%- set state.waiting = true -%}
        {%- endif -%}
        {%- do sync_logs.build_lease_pause() -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(
        "sync_logs: schema " ~ target.schema ~ " is in use by another build (" ~ state.holder
        ~ "); gave up " ~ ("after waiting " ~ wait_seconds ~ " s" if wait_seconds > 0 else "at once")
        ~ ". Two builds must not write one schema together: wait for that build to end, or set var"
        ~ " sync_logs_lock_wait_seconds to wait longer. A build killed before its on-run-end"
        ~ " leaves its lease until it expires (var sync_logs_build_lease_seconds); remove it with"
        ~ " dbt run-operation sync_logs.release_build_lease --args '{lease_id: <dbt invocation>}'.") }}
{% endmacro %}
