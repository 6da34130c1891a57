# Test tiers (ctest -L LABEL), set in one place for every test that is not a GoogleTest case
# (those are `unit`, set by goblin_module) or a fuzz run (`fuzz`):
#   checks   code and docs checks (layering, ratchet, generated pages), seconds
#   e2e      the built goblin on real inputs, end to end
#   server   tests that start a server or client process (MCP SDK, profile-server)
#   browser  the dashboard in headless Chromium
#   slurm    a one-node Slurm the test starts itself
#   gate     the performance gate: instruction counts under valgrind (bench/gate), minutes
# `scripts/test --quick` runs unit, checks and e2e; `scripts/test` runs everything (CI).
#
# The table is here; CMake can label a test only in the directory that added it, so each
# CMakeLists.txt that adds tests ends with goblin_apply_labels().
function(goblin_label label)
  foreach(t ${ARGN})
    set_property(GLOBAL APPEND PROPERTY GOBLIN_TEST_LABELS "${t}=${label}")
  endforeach()
endfunction()

function(goblin_apply_labels)
  get_property(pairs GLOBAL PROPERTY GOBLIN_TEST_LABELS)
  foreach(p ${pairs})
    string(REPLACE "=" ";" kv "${p}")
    list(GET kv 0 t)
    list(GET kv 1 label)
    if(TEST ${t})
      set_property(TEST ${t} APPEND PROPERTY LABELS ${label})
    endif()
  endforeach()
endfunction()

goblin_label(checks layering layering_self_test docs_results docs_results_self_test text_format
             text_format_self_test namespaces namespaces_self_test ratchet ratchet_self_test python_lint
             docs_verbs_current docs_architecture_current docs_figures_current cli_has_every_verb perf_gate_self_test)
goblin_label(e2e acceptance_h100_breakdown advice_flags_exist corpus_public_traces step_time_across_verbs
             secrets_never_printed robustness_table kernel_harness_integrity kernel_exploit_corpus python_module
             python_notebook scale_k8s_manifests threads_identical)
# The simulated ROCm host (tests/sim_rocm): live AMD profile, bench and audit.
goblin_label(e2e sim_rocm_profile sim_rocm_rocprof_disagree sim_rocm_rocprofv3_outputs sim_rocm_bench sim_rocm_audit_mi300x sim_rocm_audit_mi355x
             sim_rocm_amd_smi_and_footer sim_rocm_audit_command sim_rocm_audit_command_script sim_rocm_bench_images)
goblin_label(server acceptance_mcp_sdk kernel_mcp_loop profile_server serve_attacks network_clients)
goblin_label(browser dashboard_browser dashboard_browser_postgresql)
goblin_label(slurm scale_slurm)
goblin_label(gate perf_gate)
