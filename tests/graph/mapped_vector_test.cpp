// mapped_vector and mapped_file: the std::vector behaviour csr_graph's users rely on, in both
// modes; writes into a view never reach the file; size changes copy the elements out first;
// copies are independent; the mapping outlives the descriptor and the file's name.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "graph_test_util.hpp"
#include "wildfire/error.hpp"
#include "wildfire/util/mapped_file.hpp"
#include "wildfire/util/mapped_vector.hpp"

namespace wildfire {
namespace {

/// A file holding the u32 values 0..count-1, mapped; `view` sees them.
class MappedVector : public ::testing::Test {
 protected:
  static constexpr std::uint32_t count = 3000;  // several pages

  void SetUp() override {
    std::vector<std::uint32_t> values(count);
    std::iota(values.begin(), values.end(), 0U);
    path_ = dir_.write("values.bin", std::string(reinterpret_cast<const char*>(values.data()), count * 4));
    bytes_ = test::read_all(path_);
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    file_ = std::make_shared<mapped_file>(fd, count * 4, path_);
    ::close(fd);  // the mapping does not need the descriptor
  }
  mapped_vector<std::uint32_t> view() const {
    return mapped_vector<std::uint32_t>::view(file_, reinterpret_cast<std::uint32_t*>(file_->data()), count);
  }

  test::temp_dir dir_;
  std::string path_;
  std::string bytes_;
  std::shared_ptr<mapped_file> file_;
};

TEST_F(MappedVector, ViewReadsTheFile) {
  ASSERT_TRUE(file_->file_backed());
  const auto v = view();
  EXPECT_TRUE(v.is_mapped());
  ASSERT_EQ(v.size(), count);
  EXPECT_FALSE(v.empty());
  EXPECT_EQ(v.front(), 0U);
  EXPECT_EQ(v.back(), count - 1);
  EXPECT_EQ(v[1234], 1234U);
  EXPECT_EQ(v.at(2999), 2999U);
  EXPECT_THROW(static_cast<void>(v.at(count)), std::out_of_range);
  std::uint64_t sum = 0;
  for (const std::uint32_t x : v) sum += x;
  EXPECT_EQ(sum, std::uint64_t{count} * (count - 1) / 2);
  EXPECT_EQ(*v.rbegin(), count - 1);
}

TEST_F(MappedVector, ElementWritesStayInTheProcess) {
  auto v = view();
  v[0] = 77;
  v.data()[2999] = 88;
  for (auto& x : v) x += 1;
  EXPECT_TRUE(v.is_mapped());  // element writes keep the view (copy-on-write pages)
  EXPECT_EQ(v[0], 78U);
  EXPECT_EQ(v[1], 2U);
  EXPECT_EQ(v[2999], 89U);
  EXPECT_EQ(test::read_all(path_), bytes_);  // the file is untouched
  EXPECT_EQ(view()[1], 2U);                  // the same private mapping sees the write
}

TEST_F(MappedVector, SizeChangesCopyTheElementsOutFirst) {
  auto v = view();
  v.push_back(v[5]);  // the argument lives in the mapping being copied out
  EXPECT_FALSE(v.is_mapped());
  ASSERT_EQ(v.size(), count + 1);
  EXPECT_EQ(v[count], 5U);
  EXPECT_EQ(v[2999], 2999U);

  auto r = view();
  r.resize(10);
  EXPECT_FALSE(r.is_mapped());
  EXPECT_EQ(r, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));

  auto a = view();
  a.assign(a.begin() + 2, a.begin() + 5);  // a range inside its own mapping
  EXPECT_EQ(a, (std::vector<std::uint32_t>{2, 3, 4}));

  auto i = view();
  const auto it = i.insert(i.begin() + 1, 100U);
  EXPECT_EQ(*it, 100U);
  EXPECT_EQ(i[0], 0U);
  EXPECT_EQ(i[1], 100U);
  EXPECT_EQ(i[2], 1U);
  i.erase(i.begin(), i.begin() + 2);
  EXPECT_EQ(i.size(), count - 1);
  EXPECT_EQ(i[0], 1U);

  auto c = view();
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_FALSE(c.is_mapped());
  EXPECT_EQ(test::read_all(path_), bytes_);
}

TEST_F(MappedVector, CopiesAreOwnedAndIndependent) {
  const auto v = view();
  mapped_vector<std::uint32_t> copy = v;
  EXPECT_FALSE(copy.is_mapped());
  EXPECT_EQ(copy, v);
  copy[3] = 1000;
  EXPECT_EQ(v[3], 3U);
  EXPECT_NE(copy, v);
  mapped_vector<std::uint32_t> assigned;
  assigned = v;
  EXPECT_FALSE(assigned.is_mapped());
  EXPECT_EQ(assigned, v);
}

TEST_F(MappedVector, MovesKeepTheMapping) {
  auto v = view();
  mapped_vector<std::uint32_t> moved = std::move(v);
  EXPECT_TRUE(moved.is_mapped());
  EXPECT_EQ(moved.size(), count);
  EXPECT_TRUE(v.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty, like a vector
  mapped_vector<std::uint32_t> target = {1, 2};
  target = std::move(moved);
  EXPECT_TRUE(target.is_mapped());
  EXPECT_EQ(target[2999], 2999U);
}

TEST_F(MappedVector, MappingOutlivesTheFileName) {
  auto v = view();
  file_.reset();  // the view holds the last reference
  std::filesystem::remove(path_);
  EXPECT_EQ(v[2500], 2500U);
  v[2500] = 1;
  EXPECT_EQ(v[2500], 1U);
}

void grow(std::vector<std::uint32_t>& out) { out.push_back(42); }

TEST_F(MappedVector, BindsToVectorReferences) {
  auto v = view();
  grow(v);  // code written for std::vector<T>& gets the owned vector
  EXPECT_FALSE(v.is_mapped());
  EXPECT_EQ(v.size(), count + 1);
  EXPECT_EQ(v.back(), 42U);
  const auto w = view();
  const std::vector<std::uint32_t> copied = w;
  EXPECT_EQ(copied.size(), count);
  EXPECT_EQ(copied[17], 17U);
  EXPECT_TRUE(w.is_mapped());
}

TEST(MappedVectorOwned, BehavesLikeAVector) {
  mapped_vector<std::uint64_t> v;
  EXPECT_TRUE(v.empty());
  EXPECT_FALSE(v.is_mapped());
  v.push_back(3);
  v.emplace_back(4);
  v.resize(4, 9);
  EXPECT_EQ(v, (std::vector<std::uint64_t>{3, 4, 9, 9}));
  EXPECT_EQ((std::vector<std::uint64_t>{3, 4, 9, 9}), v);
  v = std::vector<std::uint64_t>{7};
  EXPECT_EQ(v.size(), 1U);
  v.assign(3, 5);
  EXPECT_EQ(v, (std::vector<std::uint64_t>{5, 5, 5}));
  v.pop_back();
  EXPECT_EQ(v.size(), 2U);
  const mapped_vector<std::uint64_t> counted(3);
  EXPECT_EQ(counted, (std::vector<std::uint64_t>{0, 0, 0}));
}

TEST(MappedFile, UnmappableFilesAreReadInstead) {
  // procfs files cannot be mapped; their bytes are read into anonymous memory.
  const std::string expected = test::read_all("/proc/self/cmdline");
  ASSERT_FALSE(expected.empty());
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  mapped_file file(fd, expected.size(), "/proc/self/cmdline");
  ::close(fd);
  if (file.file_backed()) GTEST_SKIP() << "this kernel maps procfs files; the fallback is not exercised";
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(file.data()), file.size()), expected);
  file.data()[0] = 'x';  // writable like a private mapping
  EXPECT_EQ(file.data()[0], 'x');
}

TEST(MappedFile, ShortUnmappableFileIsAnError) {
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  try {
    mapped_file file(fd, 1 << 20, "/proc/self/cmdline");
    ::close(fd);
    if (file.file_backed()) GTEST_SKIP() << "this kernel maps procfs files";
    FAIL() << "reading 1 MiB of /proc/self/cmdline should fail";
  } catch (const input_error& e) {
    ::close(fd);
    EXPECT_EQ(e.file(), "/proc/self/cmdline");
    EXPECT_NE(std::string(e.what()).find("unexpected end of file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wildfire
