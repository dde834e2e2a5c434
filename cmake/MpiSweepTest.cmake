# The MPI sweep test (ctest mpi_sweep): the same sweep run locally with -j 1 and under
# `mpirun --oversubscribe -np 3` (rank 0 serves, ranks 1 and 2 run points) must give the
# same CSV, byte for byte, and a resume under mpirun of a file with forged rows gives that
# CSV again. Arguments: MOE_SIM, MPIEXEC, SWEEP, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${MOE_SIM} sweep ${SWEEP} -j 1 --csv ${WORK_DIR}/local.csv
                RESULT_VARIABLE local_rc ERROR_VARIABLE local_err)
if(NOT local_rc EQUAL 0)
  message(FATAL_ERROR "local sweep exited ${local_rc}: ${local_err}")
endif()
# As root (CI), OpenMPI wants --allow-run-as-root; the environment variables say the same
# for every OpenMPI version and are harmless otherwise.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
# Loopback only: one machine, no network interface probing beyond lo.
set(ENV{OMPI_MCA_btl} "self,vader,tcp")
set(ENV{OMPI_MCA_btl_tcp_if_include} "lo")
set(ENV{OMPI_MCA_oob_tcp_if_include} "lo")
execute_process(COMMAND ${MPIEXEC} --oversubscribe -np 3 ${MOE_SIM} sweep ${SWEEP}
                        --csv ${WORK_DIR}/mpi.csv
                RESULT_VARIABLE mpi_rc OUTPUT_VARIABLE mpi_out ERROR_VARIABLE mpi_err)
if(NOT mpi_rc EQUAL 0)
  message(FATAL_ERROR "mpirun sweep exited ${mpi_rc}:\n${mpi_out}\n${mpi_err}")
endif()
file(READ ${WORK_DIR}/local.csv local_csv)
file(READ ${WORK_DIR}/mpi.csv mpi_csv)
string(LENGTH "${local_csv}" local_len)
if(local_len LESS 200)
  message(FATAL_ERROR "the local CSV is too short to compare anything:\n${local_csv}")
endif()
if(NOT local_csv STREQUAL mpi_csv)
  message(FATAL_ERROR "the mpirun CSV differs from the local -j 1 CSV:\n--- local\n"
                      "${local_csv}\n--- mpirun\n${mpi_csv}")
endif()
message(STATUS "mpirun -np 3 CSV == local -j 1 CSV (${local_len} bytes)")

# --resume under mpirun reads the file with the same checks as a local resume: a forged
# status makes that point run again, and the file comes back to the fresh run's bytes.
string(REPLACE ",ok," ",deadlock," forged_csv "${local_csv}")
string(FIND "${forged_csv}" ",deadlock," forged_at)
if(forged_at EQUAL -1)
  message(FATAL_ERROR "the local CSV has no ok row to forge:\n${local_csv}")
endif()
file(WRITE ${WORK_DIR}/resumed.csv "${forged_csv}")
execute_process(COMMAND ${MPIEXEC} --oversubscribe -np 3 ${MOE_SIM} sweep ${SWEEP}
                        --resume --csv ${WORK_DIR}/resumed.csv
                RESULT_VARIABLE resume_rc OUTPUT_VARIABLE resume_out ERROR_VARIABLE resume_err)
if(NOT resume_rc EQUAL 0)
  message(FATAL_ERROR "mpirun sweep --resume exited ${resume_rc}:\n${resume_out}\n${resume_err}")
endif()
string(FIND "${resume_err}" "its check does not match its fields" noted)
if(noted EQUAL -1)
  message(FATAL_ERROR "mpirun sweep --resume did not name the forged rows:\n${resume_err}")
endif()
file(READ ${WORK_DIR}/resumed.csv resumed_csv)
if(NOT local_csv STREQUAL resumed_csv)
  message(FATAL_ERROR "the CSV resumed under mpirun differs from the local -j 1 CSV:\n"
                      "--- local\n${local_csv}\n--- resumed\n${resumed_csv}")
endif()
message(STATUS "mpirun --resume over forged rows == local -j 1 CSV")
