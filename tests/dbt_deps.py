"""`dbt deps` of a test project, under a lock: the pytest-xdist workers share the project folder."""

import fcntl
import tempfile
from pathlib import Path

from dbt.cli.main import dbtRunner

CHECKOUT = Path(__file__).resolve().parents[1]


def install_package(project: Path) -> None:
    """Links this checkout into `project`'s dbt_packages (its packages.yml: `local:`), unless the
    link is there: `dbt deps` replaces it, and another worker's dbt may be reading through it."""
    lock_path = Path(tempfile.gettempdir()) / f"sync_logs_deps_{project.name}.lock"
    link = project / "dbt_packages" / "sync_logs"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if link.is_symlink() and link.resolve() == CHECKOUT:
            return
        result = dbtRunner().invoke(["deps", "--project-dir", str(project)])
    if not result.success:
        raise RuntimeError(f"dbt deps failed: {result.exception}")
