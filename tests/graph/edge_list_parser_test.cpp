// The text parser: every accepted format and quirk, every malformed-line error with its line
// number, and independence from the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "wildfire/error.hpp"
#include "wildfire/graph/edge_list_parser.hpp"

namespace wildfire {
namespace {

parsed_edge_list parse(const std::string& text, text_format format = text_format::automatic, bool skip = false,
                       int threads = 0) {
  edge_list_parse_options options;
  options.format = format;
  options.skip_invalid_lines = skip;
  options.file_name = "g.txt";
  options.num_threads = threads;
  return parse_edge_list(text, options);
}

/// Parses expecting an input_error; returns it.
input_error parse_error(const std::string& text, text_format format = text_format::automatic, bool skip = false) {
  try {
    parse(text, format, skip);
  } catch (const input_error& e) {
    return e;
  }
  ADD_FAILURE() << "no input_error for: " << text;
  return input_error("none", 0, "none");
}

using ids = std::vector<std::uint64_t>;

TEST(EdgeListParser, SnapCommentsTabsCrlfBlankLines) {
  const auto p = parse("# comment\r\n% other comment\r\n\r\n1\t2\r\n  \r\n2\t3\r\n# mid comment\n3\t1");
  EXPECT_EQ(p.sources, (ids{1, 2, 3}));
  EXPECT_EQ(p.targets, (ids{2, 3, 1}));
  EXPECT_FALSE(p.has_probabilities());
  EXPECT_EQ(p.format, text_format::snap);
  EXPECT_EQ(p.max_id, 3U);
}

TEST(EdgeListParser, SpacesCommasAndSurroundingBlanks) {
  const auto p = parse("1 2\n3,4\n  5   6  \n7 , 8\n9\t,\t10\n");
  EXPECT_EQ(p.sources, (ids{1, 3, 5, 7, 9}));
  EXPECT_EQ(p.targets, (ids{2, 4, 6, 8, 10}));
}

TEST(EdgeListParser, SixtyFourBitIds) {
  const auto p = parse("18446744073709551615 0\n12345678901234567890 18446744073709551614\n");
  EXPECT_EQ(p.sources, (ids{18446744073709551615ULL, 12345678901234567890ULL}));
  EXPECT_EQ(p.targets, (ids{0, 18446744073709551614ULL}));
  EXPECT_EQ(p.max_id, 18446744073709551615ULL);
}

TEST(EdgeListParser, IdAboveTwoToTheSixtyFourIsAnError) {
  const auto e = parse_error("1 2\n18446744073709551616 3\n");
  EXPECT_EQ(e.line(), 2U);
  EXPECT_NE(std::string(e.what()).find("exceeds 2^64-1"), std::string::npos) << e.what();
}

TEST(EdgeListParser, WeightedThirdColumn) {
  const auto p = parse("1 2 0.5\n2 3 1\n3 1 0\n1 3 1e-3\n");
  EXPECT_EQ(p.format, text_format::weighted);
  ASSERT_TRUE(p.has_probabilities());
  EXPECT_EQ(p.probabilities, (std::vector<double>{0.5, 1.0, 0.0, 0.001}));
}

TEST(EdgeListParser, CountsHeaderDetectedBeforeWeightedLines) {
  const auto p = parse("3 2\n0 1 0.5\n1 2 0.25\n");
  EXPECT_EQ(p.format, text_format::nm_header);
  EXPECT_TRUE(p.has_counts_header);
  EXPECT_EQ(p.declared_vertices, 3U);
  EXPECT_EQ(p.declared_edges, 2U);
  EXPECT_EQ(p.sources, (ids{0, 1}));
}

TEST(EdgeListParser, TwoColumnCountsHeaderOnlyWhenItDescribesTheBody) {
  const auto header = parse("5 3\n0 1\n1 2\n2 4\n");
  EXPECT_TRUE(header.has_counts_header);
  EXPECT_EQ(header.sources, (ids{0, 1, 2}));
  // Three edges follow but the line says 2: it is an edge.
  const auto edge = parse("5 2\n0 1\n1 2\n2 4\n");
  EXPECT_FALSE(edge.has_counts_header);
  EXPECT_EQ(edge.sources, (ids{5, 0, 1, 2}));
  EXPECT_EQ(edge.targets, (ids{2, 1, 2, 4}));
  // An id at or above the would-be n: an edge too.
  const auto edge2 = parse("3 3\n0 1\n1 2\n2 3\n");
  EXPECT_FALSE(edge2.has_counts_header);
  EXPECT_EQ(edge2.size(), 4U);
}

TEST(EdgeListParser, ExplicitCountsHeaderChecksTheBody) {
  const auto mismatch = parse_error("4 3\n0 1\n1 2\n", text_format::nm_header);
  EXPECT_EQ(mismatch.line(), 1U);
  EXPECT_NE(std::string(mismatch.what()).find("declares 3 edges but 2"), std::string::npos) << mismatch.what();
  const auto out_of_range = parse_error("4 2\n0 1\n1 4\n", text_format::nm_header);
  EXPECT_EQ(out_of_range.line(), 3U);
  EXPECT_NE(std::string(out_of_range.what()).find("not below the declared vertex count 4"), std::string::npos);
}

TEST(EdgeListParser, CountsHeaderWithNoEdgesIsAGraphOfIsolatedVertices) {
  const auto p = parse("# isolated\n5 0\n", text_format::nm_header);
  EXPECT_TRUE(p.has_counts_header);
  EXPECT_EQ(p.declared_vertices, 5U);
  EXPECT_EQ(p.size(), 0U);
}

TEST(EdgeListParser, CsvWithHeaderRow) {
  const auto p = parse("id_1,id_2\n5,7\r\n7,9\n");
  EXPECT_EQ(p.format, text_format::csv);
  EXPECT_EQ(p.sources, (ids{5, 7}));
  EXPECT_EQ(p.targets, (ids{7, 9}));
  const auto weighted = parse("from,to,p\n1,2,0.5\n", text_format::csv);
  EXPECT_EQ(weighted.probabilities, (std::vector<double>{0.5}));
}

TEST(EdgeListParser, NonNumericIdNamesTheLine) {
  const auto e = parse_error("0 1\n1 2\n2 three\n");
  EXPECT_EQ(e.line(), 3U);
  EXPECT_EQ(std::string(e.what()), "non-numeric vertex id \"three\", expected an unsigned integer (g.txt:3)");
}

TEST(EdgeListParser, NegativeIdIsNonNumeric) {
  EXPECT_EQ(parse_error("0 1\n-1 2\n").line(), 2U);
}

TEST(EdgeListParser, MissingAndExtraColumns) {
  const auto missing = parse_error("0 1\n1\n");
  EXPECT_EQ(missing.line(), 2U);
  EXPECT_NE(std::string(missing.what()).find("missing column"), std::string::npos) << missing.what();
  const auto missing_p = parse_error("0 1 0.5\n1 2\n");
  EXPECT_EQ(missing_p.line(), 2U);
  EXPECT_NE(std::string(missing_p.what()).find("missing column"), std::string::npos);
  const auto empty_field = parse_error("0,1\n1,,2\n");
  EXPECT_EQ(empty_field.line(), 2U);
  const auto extra = parse_error("0 1\n1 2\n2 3 0.5\n");
  EXPECT_EQ(extra.line(), 3U);
  EXPECT_NE(std::string(extra.what()).find("extra column"), std::string::npos);
  // A 2-field first line before `u v p` lines that does not describe them is an edge without p.
  const auto short_first = parse_error("0 1\n1 2 0.5\n");
  EXPECT_EQ(short_first.line(), 1U);
  EXPECT_NE(std::string(short_first.what()).find("missing column"), std::string::npos);
  const auto weighted_needs_three = parse_error("0 1\n", text_format::weighted);
  EXPECT_EQ(weighted_needs_three.line(), 1U);
}

TEST(EdgeListParser, ProbabilityOutsideUnitIntervalNamesTheLineEvenWhenSkipping) {
  for (const char* bad : {"1.5", "-0.1", "nan", "inf"}) {
    const auto e = parse_error(std::string("0 1 0.5\n1 2 ") + bad + "\n", text_format::automatic, true);
    EXPECT_EQ(e.line(), 2U) << bad;
  }
  const auto e = parse_error("0 1 0.5\n1 2 1.5\n");
  EXPECT_EQ(std::string(e.what()), "probability 1.5 is outside [0, 1] (g.txt:2)");
  const auto non_numeric = parse_error("0 1 0.5\n1 2 high\n");
  EXPECT_NE(std::string(non_numeric.what()).find("non-numeric probability"), std::string::npos);
}

TEST(EdgeListParser, LeadingUrlLineFailsOnLineOneUnlessSkipped) {
  const std::string text = "https://snap.stanford.edu/data/ca-GrQc.html\r\n# Nodes: 3\r\n1\t2\r\n2\t3\r\n";
  EXPECT_EQ(parse_error(text).line(), 1U);
  const auto p = parse(text, text_format::automatic, true);
  EXPECT_EQ(p.invalid_lines_skipped, 1U);
  EXPECT_EQ(p.sources, (ids{1, 2}));
}

TEST(EdgeListParser, SkipInvalidLinesCountsEveryMalformedLine) {
  const auto p = parse("0 1\nx y\n1 2\n3\n2 3\n", text_format::automatic, true);
  EXPECT_EQ(p.invalid_lines_skipped, 2U);
  EXPECT_EQ(p.sources, (ids{0, 1, 2}));
}

TEST(EdgeListParser, EmptyInputsAreErrors) {
  EXPECT_EQ(parse_error("").line(), 0U);
  EXPECT_EQ(parse_error("# only a comment\n\n").line(), 0U);
  EXPECT_NE(std::string(parse_error("\n").what()).find("empty input"), std::string::npos);
  EXPECT_EQ(parse_error("id_1,id_2\n").line(), 0U);
  EXPECT_EQ(parse_error("x\n", text_format::automatic, true).line(), 0U);
}

TEST(EdgeListParser, NoTrailingNewline) {
  EXPECT_EQ(parse("1 2\n3 4").size(), 2U);
  EXPECT_EQ(parse("1 2").size(), 1U);
}

TEST(EdgeListParser, UnknownFormatNameIsAConfigError) {
  EXPECT_THROW(parse_text_format("tsv"), config_error);
  EXPECT_EQ(parse_text_format("nm-header"), text_format::nm_header);
}

/// A text of `lines` edge lines with a comment every 1000 lines: several chunks of 1 MiB.
std::string big_text(std::size_t lines, bool weighted) {
  std::string text = "# synthetic\n";
  for (std::size_t i = 0; i < lines; ++i) {
    if (i % 1000 == 999) text += "% comment\n";
    text += std::to_string(i * 7919 % 100003) + (i % 2 ? "\t" : " ") + std::to_string(i % 4099);
    if (weighted) text += " 0." + std::to_string(i % 1000);
    text += i % 3 ? "\n" : "\r\n";
  }
  return text;
}

TEST(EdgeListParser, SameResultForAnyThreadCount) {
  const std::string text = big_text(400000, true);
  ASSERT_GT(text.size(), 4U << 20);
  const auto one = parse(text, text_format::automatic, false, 1);
  const auto four = parse(text, text_format::automatic, false, 4);
  ASSERT_EQ(one.size(), 400000U);
  EXPECT_EQ(one.sources, four.sources);
  EXPECT_EQ(one.targets, four.targets);
  EXPECT_EQ(one.probabilities, four.probabilities);
  EXPECT_EQ(one.sources[123457], 123457ULL * 7919 % 100003);
  EXPECT_DOUBLE_EQ(one.probabilities[1234], 0.234);
}

TEST(EdgeListParser, ErrorLineNumberInALaterChunkIsExact) {
  std::string text = big_text(300000, false);
  const std::size_t pos = text.find('\n', text.size() * 8 / 10) + 1;  // a line start in a late chunk
  const auto line = static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  text.insert(pos, "oops 1\n");  // becomes line `line + 1`
  for (int threads : {1, 3}) {
    try {
      parse(text, text_format::automatic, false, threads);
      ADD_FAILURE() << "no error";
    } catch (const input_error& e) {
      EXPECT_EQ(e.line(), line + 1) << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace wildfire
