// The CUDA backend's developer settings (environment_knobs.hpp), parsed on the host: the values
// the fused sampler takes for WF_FUSED_PULL / WF_FUSED_TOUCH-style shares and on/off switches.
#include <gtest/gtest.h>

#include <utility>

#include "cuda/environment_knobs.hpp"
#include "support/environment_override.hpp"

namespace wildfire {
namespace {

using test::environment_override;

constexpr const char* knob = "WF_TEST_KNOB";

double share() { return cuda::share_from_environment(knob, 10, 20, 30); }

TEST(EnvironmentKnobs, ShareOnOffAndUnset) {
  EXPECT_EQ(share(), 30);
  {
    const environment_override on(knob, "on");
    EXPECT_EQ(share(), 10);
  }
  {
    const environment_override off(knob, "off");
    EXPECT_EQ(share(), 20);
  }
  EXPECT_EQ(share(), 30);
}

TEST(EnvironmentKnobs, ShareTakesNumbersInTheUnitInterval) {
  for (const auto& [text, value] : {std::pair{"0.25", 0.25}, std::pair{"1", 1.0}, std::pair{"1e-3", 1e-3}}) {
    const environment_override set(knob, text);
    EXPECT_EQ(share(), value) << text;
  }
}

TEST(EnvironmentKnobs, ShareIgnoresOtherText) {
  for (const char* text : {"0", "-0.5", "1.5", "0.5x", "", "ON", "half"}) {
    const environment_override set(knob, text);
    EXPECT_EQ(share(), 30) << '"' << text << '"';
  }
}

TEST(EnvironmentKnobs, SwitchMatchesTheWholeValue) {
  EXPECT_FALSE(cuda::environment_is(knob, "off"));
  const environment_override set(knob, "off");
  EXPECT_TRUE(cuda::environment_is(knob, "off"));
  EXPECT_FALSE(cuda::environment_is(knob, "of"));
  EXPECT_FALSE(cuda::environment_is(knob, "offline"));
  EXPECT_FALSE(cuda::environment_is("WF_TEST_KNOB_UNSET", "off"));
}

}  // namespace
}  // namespace wildfire
