// mpk - look inside MessagePack: convert to and from JSON, dump, validate, count.
//
// Exit status: 0 success; 1 bad input (the message on standard error is
// "offset N: <what is wrong>") or an I/O error; 2 usage error.
#include <CLI/CLI.hpp>

#include "tool.hpp"

int main(int argc, char** argv) {
  using namespace mpk_tool;
  CLI::App app{"mpk: look inside MessagePack - convert to and from JSON, dump, validate, count"};
  app.name("mpk");
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::help);

  const char* file_help = "input file; standard input when '-' or absent";
  auto add_records = [](CLI::App* command, records_args& r) {
    command->add_flag("--records", r.records,
                      "read msgpackr records (ext 0x72) as maps; definitions persist across "
                      "the values of the input");
    command->add_option("--structures", r.structures,
                        "msgpackr shared structures (the bytes of pack(structures)); implies "
                        "--records");
  };

  to_json_args tj;
  auto* to_json = app.add_subcommand("to-json",
                                     "MessagePack to JSON: one text per top-level "
                                     "value, one per line when there are several");
  to_json->add_flag("--pretty", tj.pretty, "indent nested values by two spaces");
  to_json->add_flag("--lossless", tj.lossless,
                    "exact mapping ($float32, $bin, $ext, $timestamp, $str, $map objects)");
  to_json->add_option("file", tj.file, file_help);
  add_records(to_json, tj.records);

  from_json_args fj;
  auto* from_json = app.add_subcommand(
      "from-json", "JSON or JSON Lines to MessagePack on standard output, smallest forms");
  from_json->add_flag("--lossless", fj.lossless, "read the lossless mapping back");
  from_json->add_option("file", fj.file, file_help);

  std::string dump_file;
  auto* dump = app.add_subcommand(
      "dump", "annotated listing: offset, raw bytes, format name and value, indented by depth");
  dump->add_option("file", dump_file, file_help);
  records_args dump_records;
  add_records(dump, dump_records);

  validate_args va;
  auto* validate = app.add_subcommand(
      "validate",
      "exit status 0 when every value is well formed within the limits, else 1 and "
      "'offset N: <what is wrong>' on standard error");
  validate->add_option("--max-depth", va.max_depth, "deepest nesting of arrays and maps")
      ->default_val(va.max_depth);
  validate
      ->add_option("--max-len", va.max_len,
                   "largest str/bin/ext length and array/map count (default: mpk's limits)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{0xffffffff}));
  validate->add_flag("--utf8", va.utf8, "also check that every string is valid UTF-8");
  validate->add_option("file", va.file, file_help);

  std::string stats_file;
  auto* stats = app.add_subcommand("stats",
                                   "number of values, counts by format, maximum depth, largest "
                                   "string, binary, array and map, total bytes");
  stats->add_option("file", stats_file, file_help);
  records_args stats_records;
  add_records(stats, stats_records);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);  // prints the message and the help of the command concerned
    return exit_usage;
  }

  if (*to_json) return run_to_json(tj);
  if (*from_json) return run_from_json(fj);
  if (*dump) return run_dump(dump_file, dump_records);
  if (*validate) return run_validate(va);
  if (*stats) return run_stats(stats_file, stats_records);
  return exit_usage;
}
