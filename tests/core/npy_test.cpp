#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "core/util/npy.h"

namespace fs = std::filesystem;
using moe::InputError;
using moe::NpyArray;

namespace {

// A fresh directory per test, removed afterwards, so parallel ctest runs never collide.
class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("moe_npy_") + info->name() + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  static std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }
  static void spit(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  // Expects readNpy(path) to throw InputError naming the file, with `ruleFragment` in the rule.
  static void expectRejected(const std::string& path, const std::string& ruleFragment) {
    try {
      moe::readNpy(path);
      FAIL() << "expected InputError for " << path;
    } catch (const InputError& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_NE(e.rule().find(ruleFragment), std::string::npos) << e.rule();
    }
  }

  fs::path dir_;
};

template <typename T>
void expectRoundTrip(const std::string& path, std::vector<std::size_t> shape,
                     const std::vector<T>& values) {
  moe::writeNpy(path, moe::makeNpy(shape, values));
  const NpyArray back = moe::readNpy(path);
  EXPECT_EQ(back.dtype, moe::NpyDtype<T>::descr);
  EXPECT_EQ(back.shape, shape);
  EXPECT_EQ(back.as<T>(), values);
}

}  // namespace

TEST_F(NpyTest, EveryDtypeRoundTripsValuesAndShape) {
  expectRoundTrip<std::int32_t>(file("i4.npy"), {2, 3}, {0, -1, 2, INT32_MAX, INT32_MIN, 7});
  expectRoundTrip<std::int64_t>(file("i8.npy"), {3}, {INT64_MIN, 0, INT64_MAX});
  expectRoundTrip<float>(file("f4.npy"), {2, 2}, {1.5f, -0.0f, 3.25e-20f, 1e30f});
  expectRoundTrip<std::uint16_t>(file("u2.npy"), {1, 2, 2}, {0x3f80, 0xbf80, 0x7fc0, 0xffff});
  expectRoundTrip<std::uint8_t>(file("u1.npy"), {4}, {0, 1, 128, 255});

  moe::writeNpy(file("b1.npy"), moe::makeNpyBool({2, 2}, {0, 1, 5, 0}));
  const NpyArray b = moe::readNpy(file("b1.npy"));
  EXPECT_EQ(b.dtype, "|b1");
  EXPECT_EQ(b.as<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1, 1, 0}));
}

TEST_F(NpyTest, ScalarAndEmptyArraysRoundTrip) {
  expectRoundTrip<float>(file("scalar.npy"), {}, {2.5f});
  expectRoundTrip<std::int32_t>(file("empty.npy"), {0, 8}, {});
}

TEST_F(NpyTest, HeaderMatchesNumpyLayoutAndPayloadStartsAt64ByteBoundary) {
  moe::writeNpy(file("a.npy"), moe::makeNpy<std::int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  const std::string bytes = slurp(file("a.npy"));
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t headerLen = static_cast<unsigned char>(bytes[8]) |
                                static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  const std::size_t dataAt = 10 + headerLen;
  EXPECT_EQ(dataAt % 64, 0u);
  EXPECT_EQ(bytes.size(), dataAt + 6 * 4);
  const std::string header = bytes.substr(10, headerLen);
  EXPECT_EQ(header.rfind("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u)
      << header;
  EXPECT_EQ(header.back(), '\n');

  // A one-dimensional shape must be written as a Python one-tuple, "(5,)".
  moe::writeNpy(file("b.npy"), moe::makeNpy<float>({5}, std::vector<float>(5, 1.0f)));
  EXPECT_NE(slurp(file("b.npy")).find("'shape': (5,)"), std::string::npos);
}

TEST_F(NpyTest, ReadsHeadersWrittenWithOtherKeyOrderAndVersion2) {
  // numpy itself may write version 2.0 (32-bit header length) and older writers ordered keys
  // differently; both are valid files.
  std::string header = "{'shape': (2,), 'fortran_order': False, 'descr': '<u2'}";
  header.append(64 - (12 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY\x02\x00", 8);
  const auto len = static_cast<std::uint32_t>(header.size());
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  bytes += header;
  bytes += std::string("\x80\x3f\x00\x40", 4);
  spit(file("v2.npy"), bytes);
  const NpyArray a = moe::readNpy(file("v2.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2}));
  EXPECT_EQ(a.as<std::uint16_t>(), (std::vector<std::uint16_t>{0x3f80, 0x4000}));
}

TEST_F(NpyTest, CorruptFilesAreRejectedWithInputErrorNamingTheFile) {
  moe::writeNpy(file("good.npy"), moe::makeNpy<std::int32_t>({4}, {1, 2, 3, 4}));
  const std::string good = slurp(file("good.npy"));

  std::string badMagic = good;
  badMagic[1] = 'X';
  spit(file("magic.npy"), badMagic);
  expectRejected(file("magic.npy"), "bad magic");

  spit(file("truncated.npy"), good.substr(0, good.size() - 3));
  expectRejected(file("truncated.npy"), "payload is");

  spit(file("extra.npy"), good + "xx");
  expectRejected(file("extra.npy"), "payload is");

  spit(file("short_header.npy"), good.substr(0, 40));
  expectRejected(file("short_header.npy"), "truncated");

  std::string badVersion = good;
  badVersion[6] = '\x07';
  spit(file("version.npy"), badVersion);
  expectRejected(file("version.npy"), "version");

  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  spit(file("fortran.npy"), fortran);
  expectRejected(file("fortran.npy"), "fortran_order");

  std::string dtype = good;
  dtype.replace(dtype.find("<i4"), 3, ">i4");
  spit(file("bigendian.npy"), dtype);
  expectRejected(file("bigendian.npy"), "unsupported dtype");

  spit(file("empty.npy"), "");
  expectRejected(file("empty.npy"), "bad magic");

  expectRejected(file("does_not_exist.npy"), "cannot open");
}

TEST_F(NpyTest, ArraysOverTwoToThe31ElementsAreRefusedBeforeAllocating) {
  // The header claims 2^31 + 1 elements but carries no payload: the bound must trip on the
  // header alone.
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (2147483649,), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  spit(file("huge.npy"), bytes + header);
  expectRejected(file("huge.npy"), "exceeds");

  // The product of individually small dimensions is bounded too.
  std::string header2 = "{'descr': '|u1', 'fortran_order': False, 'shape': (65536, 65537), }";
  header2.append(64 - (10 + header2.size() + 1) % 64, ' ');
  header2.push_back('\n');
  std::string bytes2("\x93NUMPY\x01\x00", 8);
  bytes2.push_back(static_cast<char>(header2.size() & 0xff));
  bytes2.push_back(static_cast<char>(header2.size() >> 8));
  spit(file("huge2.npy"), bytes2 + header2);
  expectRejected(file("huge2.npy"), "more than");
}

TEST_F(NpyTest, BoolPayloadOtherThanZeroOrOneIsRejected) {
  moe::writeNpy(file("b.npy"), moe::makeNpyBool({2}, {1, 0}));
  std::string bytes = slurp(file("b.npy"));
  bytes.back() = '\x02';
  spit(file("b.npy"), bytes);
  expectRejected(file("b.npy"), "bool");
}

TEST(Npy, TypedAccessWithWrongDtypeIsACallerError) {
  const NpyArray a = moe::makeNpy<float>({1}, {1.0f});
  EXPECT_THROW(a.as<std::int32_t>(), std::invalid_argument);
  EXPECT_THROW(moe::makeNpy<float>({2}, {1.0f}), std::invalid_argument);
}
