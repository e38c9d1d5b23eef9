#include "batch/worker_protocol.h"

#include <nlohmann/json.hpp>

namespace sg::batch {

std::string encode_job(const WorkerJob& job) {
  return nlohmann::json{{"args", job.args}, {"log", job.log_file}}.dump() + "\n";
}

std::optional<WorkerJob> decode_job(const std::string& line, std::string& why) {
  try {
    const nlohmann::json j = nlohmann::json::parse(line);
    WorkerJob job;
    job.args = j.at("args").get<std::vector<std::string>>();
    job.log_file = j.at("log").get<std::string>();
    if (job.log_file.empty()) {
      why = "a job without a log file";
      return std::nullopt;
    }
    return job;
  } catch (const nlohmann::json::exception& e) {
    why = std::string("not a job: ") + e.what();
    return std::nullopt;
  }
}

std::string encode_reply(const WorkerReply& reply) {
  return nlohmann::json{{"code", reply.code}, {"ends", reply.ends}}.dump() + "\n";
}

std::optional<WorkerReply> decode_reply(const std::string& line) {
  try {
    const nlohmann::json j = nlohmann::json::parse(line);
    return WorkerReply{j.at("code").get<int>(), j.at("ends").get<bool>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace sg::batch
