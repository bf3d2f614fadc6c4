#include "pdctl/util/strings.hpp"

#include <gtest/gtest.h>

#include "pdctl/util/redactor.hpp"

namespace pdctl::util {
namespace {

TEST(UrlWithPath, ReplacesThePathOfTheSameServer) {
    EXPECT_EQ(url_with_path("http://127.0.0.1:30000/health", "/metrics"), "http://127.0.0.1:30000/metrics");
    EXPECT_EQ(url_with_path("http://n5:31000/a/b?c=1", "/generate"), "http://n5:31000/generate");
}

TEST(UrlWithPath, AddsThePathToAUrlWithoutOne) {
    EXPECT_EQ(url_with_path("http://127.0.0.1:9003", "/metrics"), "http://127.0.0.1:9003/metrics");
    EXPECT_EQ(url_with_path("127.0.0.1:9003", "/metrics"), "127.0.0.1:9003/metrics");
}

TEST(WithoutTrailingSlash, DropsEverySlashAtTheEndOnly) {
    EXPECT_EQ(without_trailing_slash("http://127.0.0.1:8000/"), "http://127.0.0.1:8000");
    EXPECT_EQ(without_trailing_slash("http://127.0.0.1:8000//"), "http://127.0.0.1:8000");
    EXPECT_EQ(without_trailing_slash("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
    EXPECT_EQ(without_trailing_slash("/var/lib/pdctl/"), "/var/lib/pdctl");
}

TEST(WithoutTrailingSlash, LeavesNothingOfTheRoot) {
    EXPECT_EQ(without_trailing_slash("/"), "");
    EXPECT_EQ(without_trailing_slash(""), "");
}

}  // namespace
}  // namespace pdctl::util

namespace pdctl::util {
namespace {

TEST(Redactor, TakesOverAnotherRedactorsSecrets) {
    Redactor first;
    first.add_secret("hf_token_one");
    Redactor second;
    second.add_secret("sk-secret-two");
    Redactor both;
    both.add_secrets_of(first);
    both.add_secrets_of(second);
    EXPECT_EQ(both.redact("a hf_token_one b sk-secret-two c"), "a [REDACTED] b [REDACTED] c");
}

}  // namespace
}  // namespace pdctl::util
