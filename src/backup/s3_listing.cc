#include "src/backup/s3_listing.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace quorum::backup {
namespace {

// The text of the first <tag>...</tag> at or after `from`; `end` is set past it.
bool Element(absl::string_view xml, absl::string_view tag, size_t from, std::string& text,
             size_t& end) {
  const std::string open = absl::StrCat("<", tag, ">");
  const std::string close = absl::StrCat("</", tag, ">");
  const size_t b = xml.find(open, from);
  if (b == absl::string_view::npos) return false;
  const size_t e = xml.find(close, b + open.size());
  if (e == absl::string_view::npos) return false;
  text = std::string(xml.substr(b + open.size(), e - b - open.size()));
  end = e + close.size();
  return true;
}

// The five XML entities S3 escapes in keys.
std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const std::pair<absl::string_view, char> entities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool replaced = false;
    for (const auto& [name, c] : entities) {
      if (s.substr(i, name.size()) == name) {
        out.push_back(c);
        i += name.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(s[i]);
  }
  return out;
}

}  // namespace

absl::StatusOr<S3ListingPage> ParseListing(absl::string_view xml) {
  if (xml.find("<ListBucketResult") == absl::string_view::npos) {
    return absl::InvalidArgumentError("not an S3 ListBucketResult");
  }
  S3ListingPage page;
  std::string contents, text;
  size_t end = 0, inner_end = 0;
  for (size_t at = 0; Element(xml, "Contents", at, contents, end); at = end) {
    S3Object& o = page.objects.emplace_back();
    if (Element(contents, "Key", 0, text, inner_end)) o.key = Unescape(text);
    if (Element(contents, "Size", 0, text, inner_end)) (void)absl::SimpleAtoi(text, &o.size);
  }
  std::string truncated;
  if (Element(xml, "IsTruncated", 0, truncated, end) && truncated == "true") {
    Element(xml, "NextContinuationToken", 0, page.next_token, end);
  }
  return page;
}

absl::StatusOr<std::vector<S3Object>> ListObjects(const S3Location& location,
                                                  const SigV4Credentials& credentials,
                                                  absl::Time now) {
  std::vector<S3Object> out;
  std::string token;
  for (int page = 0; page < 1000; ++page) {
    S3Query query = {{"list-type", "2"}, {"prefix", location.key}};
    if (!token.empty()) query.emplace_back("continuation-token", token);
    absl::StatusOr<std::string> body = GetBucketListing(location, credentials, query, now);
    if (!body.ok()) return body.status();
    absl::StatusOr<S3ListingPage> parsed = ParseListing(*body);
    if (!parsed.ok()) return parsed.status();
    for (S3Object& o : parsed->objects) out.push_back(std::move(o));
    token = parsed->next_token;
    if (token.empty()) return out;
  }
  return absl::UnavailableError("S3 listing did not end after 1000 pages");
}

}  // namespace quorum::backup
