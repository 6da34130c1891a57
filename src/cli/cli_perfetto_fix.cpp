// `goblin perfetto-fix TRACE -o OUT [--json]`: moves kernels that overlap on one (pid, tid) track
// to extra "<tid>_hackN" tracks (flows kept) so Perfetto draws them; OUT gzip when it ends in .gz.
#include <fmt/format.h>

#include <iterator>

#include "analysis/perfetto_fix.h"
#include "cli/verb.h"
#include "cli/verbs.h"

namespace goblin::cli {

void register_perfetto_fix(CLI::App& app) {
  struct Opts {
    std::string trace, out;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("perfetto-fix",
                                 "Rewrite a Kineto/Chrome trace so kernels overlapping on one track move to extra "
                                 "tracks (<tid>_hack1, ...) with flows kept; the result opens cleanly in Perfetto");
  cmd->footer(help_footer_with_examples(
      "  goblin perfetto-fix trace.json.gz -o fixed.json.gz   open fixed.json.gz in ui.perfetto.dev\n"));
  cmd->add_option("trace", o->trace, "Kineto / Chrome trace JSON (optionally .gz)")->required();
  cmd->add_option("-o,--out", o->out, "Output file (gzip when it ends in .gz)")->required();
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult vr;
      auto st = perfetto_fix_file(o->trace, o->out);
      if (!st) {
        vr.error = st.error();
        return vr;
      }
      const PerfettoFixStats& s = *st;
      vr.result = {{"out", o->out},
                   {"events", s.events},
                   {"gpu_events", s.gpu_events},
                   {"moved", s.moved},
                   {"tracks_split", s.tracks_split},
                   {"extra_tracks", s.extra_tracks},
                   {"flows_moved", s.flows_moved},
                   {"unmovable", s.unmovable}};
      vr.human = fmt::format(
          "perfetto-fix: {} GPU events, {} moved to {} extra track(s) on {} track(s), {} flow event(s) re-pointed "
          "-> {}\n",
          s.gpu_events, s.moved, s.extra_tracks, s.tracks_split, s.flows_moved, o->out);
      if (s.unmovable)
        fmt::format_to(std::back_inserter(vr.human), "{} overlapping event(s) had no tid field and stayed in place\n",
                       s.unmovable);
      return vr;
    });
  });
}

}  // namespace goblin::cli
