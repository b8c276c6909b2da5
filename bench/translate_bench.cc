// heed's side of bench/compare.py: translates a job's lines in batches and
// reports the outputs and timings as JSON. A benchmark driver, not a test.
//   translate_bench JOB.json RESULT.json
// JOB: {"model": path, "lines": [text], "to": "de", "beam": k, "batch": b,
//       "threads": n, "runs": r}
// RESULT: {"outputs": [text], "seconds": [per run], "latency": [per batch,
//          last run], "load_seconds": s, "peak_rss_bytes": n}
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/translator.h"

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: translate_bench JOB.json RESULT.json\n";
    return 2;
  }
  try {
    const nlohmann::json job = nlohmann::json::parse(std::ifstream(argv[1]));
    const auto t0 = Clock::now();
    const heed::Translator translator =
        heed::Translator::FromFile(job.at("model").get<std::string>());
    const double load = Since(t0);
    const auto lines = job.at("lines").get<std::vector<std::string>>();
    heed::TranslateOptions o;
    o.to = job.at("to").get<std::string>();
    o.beam_size = job.at("beam").get<size_t>();
    o.max_batch = job.at("batch").get<size_t>();
    o.threads = job.at("threads").get<size_t>();
    // A batch per call when timing latency; the whole input in one call
    // (batches spread over threads) when timing throughput.
    const size_t per_call = o.max_batch == 1 ? 1 : lines.size();
    std::vector<double> seconds, latency;
    std::vector<std::string> outputs;
    for (int run = 0; run < job.at("runs").get<int>(); ++run) {
      outputs.clear();
      latency.clear();
      const auto start = Clock::now();
      for (size_t i = 0; i < lines.size(); i += per_call) {
        const auto b0 = Clock::now();
        const std::vector<std::string> part(
            lines.begin() + i,
            lines.begin() + std::min(lines.size(), i + per_call));
        for (const heed::Result& r : translator.Translate(part, o)) {
          outputs.push_back(r.text);
        }
        latency.push_back(Since(b0));
      }
      seconds.push_back(Since(start));
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    nlohmann::json result = {
        {"outputs", outputs},
        {"seconds", seconds},
        {"latency", latency},
        {"load_seconds", load},
        {"peak_rss_bytes", static_cast<double>(usage.ru_maxrss) * 1024}};
    std::ofstream(argv[2]) << result.dump();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "translate_bench: " << e.what() << "\n";
    return 1;
  }
}
