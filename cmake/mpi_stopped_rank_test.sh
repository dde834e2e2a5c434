#!/bin/sh
# The MPI stopped-rank test (ctest mpi_sweep_stopped_rank): under `mpirun -np 3`, rank 1 is
# stopped (SIGSTOP) while the sweep runs. Rank 0 must report it ("rank 1 silent for ...")
# and exit 2 within --rank-timeout instead of waiting forever, leaving the rows finished so
# far in the CSV; --resume then completes the CSV to the local -j 1 run's bytes.
# Arguments: MOE_SIM MPIEXEC WORK_DIR.
set -u
MOE_SIM=$1 MPIEXEC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
# 40 small points (about 0.1 s each): rank 1 is stopped with most of them left.
SWEEP=$WORK/sweep.json
cat >"$SWEEP" <<'JSON'
{
  "base": {
    "model": { "tokens_per_rank": 32, "hidden": 1024, "experts": 32, "topk": 4 },
    "rings": { "chunk_bytes": 8192 }
  },
  "axes": [ { "field": "seed", "range": { "from": 1, "to": 40, "step": 1 } } ],
  "designs": ["phased", "streaming"]
}
JSON
fail() {
  echo "FAIL: $*"
  cat "$WORK"/err*.txt 2>/dev/null
  exit 1
}

# As root (CI), OpenMPI wants these; loopback only.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

"$MOE_SIM" sweep "$SWEEP" -j 1 --csv "$WORK/local.csv" 2>"$WORK/local_err.txt" ||
  fail "the local sweep exited $?"
total=$(wc -l <"$WORK/local.csv")

"$MPIEXEC" --oversubscribe -np 3 "$MOE_SIM" sweep "$SWEEP" --csv "$WORK/mpi.csv" \
  --rank-timeout 2 >"$WORK/out.txt" 2>"$WORK/err_stop.txt" &
mpirun_pid=$!

# Rank 1 is the child of mpirun whose environment says so. Stop it once rows are flowing
# (after MPI_Init, which every rank must finish), while many points are left.
rank1=""
i=0
while [ $i -lt 600 ] && [ -z "$rank1" ]; do
  i=$((i + 1))
  if [ -f "$WORK/mpi.csv" ] && [ "$(wc -l <"$WORK/mpi.csv")" -ge 2 ]; then
    for d in /proc/[0-9]*; do
      [ "$(awk '/^PPid:/ {print $2}' "$d/status" 2>/dev/null)" = "$mpirun_pid" ] || continue
      if tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
        rank1=${d#/proc/}
      fi
    done
  fi
  [ -z "$rank1" ] && sleep 0.05
done
[ -n "$rank1" ] || { kill "$mpirun_pid"; fail "rank 1 was not found under mpirun $mpirun_pid"; }
kill -STOP "$rank1"

# Rank 0 must give up within the timeout (2 s), not hang: allow 60 s.
i=0
while kill -0 "$mpirun_pid" 2>/dev/null && [ $i -lt 600 ]; do
  sleep 0.1
  i=$((i + 1))
done
if kill -0 "$mpirun_pid" 2>/dev/null; then
  kill -CONT "$rank1" 2>/dev/null
  kill "$mpirun_pid"
  fail "rank 0 still waits 60 s after rank 1 was stopped"
fi
wait "$mpirun_pid"
rc=$?
kill -CONT "$rank1" 2>/dev/null
kill -KILL "$rank1" 2>/dev/null
[ "$rc" -eq 2 ] || fail "mpirun exited $rc, expected 2"
grep -q "rank 1 silent for [0-9]* s on point [0-9]*" "$WORK/err_stop.txt" ||
  fail "rank 0 did not name the silent rank and its point"
done_lines=$(wc -l <"$WORK/mpi.csv")
[ "$done_lines" -lt "$total" ] || fail "the sweep finished before rank 1 was missed"

"$MPIEXEC" --oversubscribe -np 3 "$MOE_SIM" sweep "$SWEEP" --csv "$WORK/mpi.csv" --resume \
  >"$WORK/out.txt" 2>"$WORK/err.txt" || fail "mpirun sweep --resume exited $?"
cmp -s "$WORK/local.csv" "$WORK/mpi.csv" || fail "the resumed CSV differs from the local -j 1 CSV"
echo "rank 1 stopped: rank 0 exited 2 naming it with $((done_lines - 1)) rows kept; --resume == local -j 1"
