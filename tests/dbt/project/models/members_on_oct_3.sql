-- who was in each audience on 2026-10-03 at noon (macro members_at)
{{ sync_logs.members_at("'2026-10-03 12:00:00'") }}
