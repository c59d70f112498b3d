"""The wheel ships the styles and the sample: build it, install it alone, run it from there."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_installs_and_runs_check_with_styles_and_sample(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)],
        check=True, capture_output=True, text=True,
    )
    (wheel,) = dist.glob("cachetui-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # The project's pip installs into the throwaway venv; dependencies come from the index as for a user.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(wheel)],
        check=True, capture_output=True, text=True,
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    sample = subprocess.run(  # the sample the wheel installed, named as a user names it
        [str(python), "-c", "from cachetui.core.load import sample_path; print(sample_path())"],
        cwd=outside, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert Path(sample).is_relative_to(env_dir)
    check = subprocess.run(
        [str(env_dir / "bin" / "cachetui"), "check", "--json", sample], cwd=outside, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    data = json.loads(check.stdout)
    assert (data["documents"], data["packages"], data["tags"], data["specs"]) == (5, 4, 2, 362)
    where = subprocess.run(
        [str(python), "-c", "import cachetui.app.styles as s; print(s.styles_dir())"],
        cwd=outside, capture_output=True, text=True, check=True,
    )
    styles = Path(where.stdout.strip())
    assert styles.is_relative_to(env_dir) and (styles / "app.tcss").is_file()
