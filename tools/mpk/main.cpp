// mpk - look inside MessagePack: convert to and from JSON, dump, validate, count, select.
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
  // The input of every command: read incrementally, each value handled as soon as it has
  // arrived.
  auto add_input = [&](CLI::App* command, input_args& in) {
    command
        ->add_option("--max-message-size", in.max_message,
                     "largest top-level value (JSON text for from-json) in bytes, which "
                     "bounds the memory used; default: no bound")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 62));
    command->add_flag("--unbuffered", in.unbuffered,
                      "flush the output after every value (it is flushed whenever the input "
                      "waits, when the output is not a regular file)");
    command->add_option("file", in.file, file_help);
  };

  to_json_args tj;
  auto* to_json = app.add_subcommand("to-json",
                                     "MessagePack to JSON: one text per top-level "
                                     "value, one per line when there are several");
  to_json->add_flag("--pretty", tj.pretty, "indent nested values by two spaces");
  to_json->add_flag("--lossless", tj.lossless,
                    "exact mapping ($float32, $bin, $ext, $timestamp, $str, $map objects)");
  add_input(to_json, tj.in);
  add_records(to_json, tj.in.records);

  from_json_args fj;
  auto* from_json = app.add_subcommand(
      "from-json", "JSON or JSON Lines to MessagePack on standard output, smallest forms");
  from_json->add_flag("--lossless", fj.lossless, "read the lossless mapping back");
  add_input(from_json, fj.in);

  input_args dump_in;
  auto* dump = app.add_subcommand(
      "dump", "annotated listing: offset, raw bytes, format name and value, indented by depth");
  add_input(dump, dump_in);
  add_records(dump, dump_in.records);

  validate_args va;
  auto* validate = app.add_subcommand(
      "validate",
      "exit status 0 when every value is well formed within the limits and its strings are "
      "UTF-8, else 1 and 'offset N: <what is wrong>' on standard error");
  validate->add_option("--max-depth", va.max_depth, "deepest nesting of arrays and maps")
      ->default_val(va.max_depth);
  validate
      ->add_option("--max-len", va.max_len,
                   "largest str/bin/ext length and array/map count (default: mpk's limits)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{0xffffffff}));
  bool no_utf8 = false;
  validate->add_flag("--no-utf8", no_utf8, "do not check that strings are valid UTF-8");
  bool utf8_flag = false;  // the former opt-in: now the default, accepted as a no-op
  validate->add_flag("--utf8", utf8_flag, "check that strings are valid UTF-8 (the default)");
  add_input(validate, va.in);

  input_args stats_in;
  auto* stats = app.add_subcommand("stats",
                                   "number of values, counts by format, maximum depth, largest "
                                   "string, binary, array and map, total bytes");
  add_input(stats, stats_in);
  add_records(stats, stats_in.records);

  get_args ga;
  auto* get = app.add_subcommand(
      "get",
      "for each top-level value, what a jq-style PATH selects (.key, .\"a key\", [n], [-1], "
      "[] for every element, chained: .items[].sku), as JSON Lines; values off the path are "
      "skipped, not converted. Exit status 0 even when the path selects nothing");
  get->add_option("path", ga.path, "the path: '.' for the whole value")->required();
  get->add_flag("--raw", ga.raw, "write the selected values as MessagePack, not JSON");
  get->add_flag("--null", ga.null,
                "write null (0xc0 with --raw) where the path selects nothing, instead of "
                "nothing");
  get->add_flag("--lossless", ga.lossless, "JSON in the lossless mapping, as to-json's");
  get->add_flag("--pretty", ga.pretty, "indent nested values by two spaces");
  add_input(get, ga.in);
  add_records(get, ga.in.records);

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
  if (*dump) return run_dump(dump_in);
  if (*validate) {
    va.utf8 = !no_utf8;
    return run_validate(va);
  }
  if (*stats) return run_stats(stats_in);
  if (*get) return run_get(ga);
  return exit_usage;
}
