// Typed exceptions carrying context (STYLE.md "Errors"). Only apps/ catches them: it prints
// "wildfire: error: <what()>" and exits non-zero. what() already holds "<what> (<where>)".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wildfire {

/// Base of every error the library throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input data: names the file and, when known, the 1-based line.
class input_error : public error {
 public:
  input_error(std::string file, std::uint64_t line, const std::string& message)
      : error(format(file, line, message)), file_(std::move(file)), line_(line) {}
  const std::string& file() const noexcept { return file_; }
  /// 0 when the error concerns the file as a whole.
  std::uint64_t line() const noexcept { return line_; }

 private:
  static std::string format(const std::string& file, std::uint64_t line, const std::string& message) {
    std::string text = message;
    text.append(" (").append(file);
    if (line != 0) text.append(":").append(std::to_string(line));
    text.append(")");
    return text;
  }
  std::string file_;
  std::uint64_t line_;
};

/// A parameter with an invalid value: names the parameter (e.g. "-k").
class config_error : public error {
 public:
  config_error(std::string parameter, const std::string& message)
      : error(message + " (" + parameter + ")"), parameter_(std::move(parameter)) {}
  const std::string& parameter() const noexcept { return parameter_; }

 private:
  std::string parameter_;
};

/// Not enough memory (host or device) for what was asked.
class resource_error : public error {
 public:
  resource_error(const std::string& what, std::uint64_t bytes_wanted, std::uint64_t bytes_available)
      : error(what + ": needs " + std::to_string(bytes_wanted) + " bytes, " +
              std::to_string(bytes_available) + " available"),
        bytes_wanted_(bytes_wanted), bytes_available_(bytes_available) {}
  std::uint64_t bytes_wanted() const noexcept { return bytes_wanted_; }
  std::uint64_t bytes_available() const noexcept { return bytes_available_; }

 private:
  std::uint64_t bytes_wanted_;
  std::uint64_t bytes_available_;
};

/// A failed CUDA runtime call: names the call, the source location and the CUDA error name.
class cuda_error : public error {
 public:
  using error::error;
};

}  // namespace wildfire

/// Throws config_error(parameter, message) unless `cond` holds.
#define WF_EXPECTS(cond, parameter, message)              \
  do {                                                    \
    if (!(cond)) throw ::wildfire::config_error((parameter), (message)); \
  } while (0)
