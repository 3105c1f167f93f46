-- a user's model that drops the rows whose latest attempt in sync 101 failed
with users as (
    {% for user in ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'] %}
    select '{{ user }}' as user_id {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select users.user_id
from users
where {{ sync_logs.exclude_failed_rows('users.user_id', sync_id=101) }}
