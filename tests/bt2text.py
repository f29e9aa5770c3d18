# Shared by the Python checks of the tests that read babeltrace2's text
# output (tests/platforms/*/check-*.py). Import with tests/ on sys.path,
# as for bt2values.py.
import subprocess


def text_lines(path, line_re, bad):
    """The match of line_re for each line babeltrace2 --clock-cycles
    prints for the trace at path, in order; bad(message) is called when
    babeltrace2 fails (no lines then) and for each line that does not
    match (left out)."""
    out = subprocess.run(["babeltrace2", "--clock-cycles", path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        bad(f"babeltrace2 cannot read {path}: exit {out.returncode}: "
            f"{out.stderr[-500:]}")
        return []
    matches = []
    for line in out.stdout.splitlines():
        m = line_re.match(line)
        if not m:
            bad(f"{path}: unexpected line: {line[:200]}")
            continue
        matches.append(m)
    return matches
