#include "sim/radix_cache.hpp"

#include <algorithm>
#include <queue>

namespace pdsim {
namespace {

constexpr CacheToken kWordTag = CacheToken{1} << 63;

std::size_t common_prefix(std::span<const CacheToken> a, std::span<const CacheToken> b) {
    const std::size_t limit = std::min(a.size(), b.size());
    std::size_t k = 0;
    while (k < limit && a[k] == b[k]) ++k;
    return k;
}

}  // namespace

struct RadixCache::Node {
    std::vector<CacheToken> key;                           // the run of tokens on the edge into this node
    std::map<CacheToken, std::unique_ptr<Node>> children;  // by the first token of their key
    Node* parent = nullptr;
    std::uint64_t last_access = 0;
};

RadixCache::RadixCache(std::size_t token_budget)
    : root_(std::make_unique<Node>()), token_budget_(token_budget) {}

RadixCache::~RadixCache() = default;

std::size_t RadixCache::match_prefix(std::span<const CacheToken> tokens) {
    Node* node = root_.get();
    std::size_t pos = 0;
    while (pos < tokens.size()) {
        auto it = node->children.find(tokens[pos]);
        if (it == node->children.end()) break;
        Node* child = it->second.get();
        const std::size_t k = common_prefix(child->key, tokens.subspan(pos));
        child->last_access = ++clock_;
        pos += k;
        if (k < child->key.size()) break;  // the prompt leaves this edge part-way
        node = child;
    }
    return pos;
}

void RadixCache::insert(std::span<const CacheToken> tokens) {
    Node* node = root_.get();
    std::size_t pos = 0;
    while (pos < tokens.size()) {
        auto it = node->children.find(tokens[pos]);
        if (it == node->children.end()) {
            auto leaf = std::make_unique<Node>();
            leaf->key.assign(tokens.begin() + static_cast<std::ptrdiff_t>(pos), tokens.end());
            leaf->parent = node;
            leaf->last_access = ++clock_;
            total_tokens_ += leaf->key.size();
            node->children.emplace(tokens[pos], std::move(leaf));
            break;
        }
        Node* child = it->second.get();
        const std::size_t k = common_prefix(child->key, tokens.subspan(pos));
        if (k < child->key.size()) {
            // Split the edge where the new sequence leaves it: the shared part becomes its own node.
            auto middle = std::make_unique<Node>();
            middle->key.assign(child->key.begin(), child->key.begin() + static_cast<std::ptrdiff_t>(k));
            middle->parent = node;
            std::unique_ptr<Node> rest = std::move(it->second);
            rest->key.erase(rest->key.begin(), rest->key.begin() + static_cast<std::ptrdiff_t>(k));
            rest->parent = middle.get();
            middle->last_access = rest->last_access;
            const CacheToken first = rest->key.front();
            middle->children.emplace(first, std::move(rest));
            it->second = std::move(middle);
            child = it->second.get();
        }
        child->last_access = ++clock_;
        pos += k;
        node = child;
    }
    evict_to_budget();
}

void RadixCache::evict_to_budget() {
    if (total_tokens_ <= token_budget_) return;
    auto older = [](const Node* a, const Node* b) { return a->last_access > b->last_access; };
    std::priority_queue<Node*, std::vector<Node*>, decltype(older)> leaves(older);
    std::vector<Node*> pending{root_.get()};
    while (!pending.empty()) {
        Node* node = pending.back();
        pending.pop_back();
        if (node != root_.get() && node->children.empty()) leaves.push(node);
        for (auto& [first, child] : node->children) pending.push_back(child.get());
    }
    while (total_tokens_ > token_budget_ && !leaves.empty()) {
        Node* leaf = leaves.top();
        leaves.pop();
        Node* parent = leaf->parent;
        total_tokens_ -= leaf->key.size();
        evicted_tokens_ += leaf->key.size();
        parent->children.erase(leaf->key.front());  // destroys the leaf
        if (parent != root_.get() && parent->children.empty()) leaves.push(parent);
    }
}

void RadixCache::reset() {
    root_ = std::make_unique<Node>();
    total_tokens_ = 0;
}

std::vector<CacheToken> text_tokens(std::string_view text) {
    std::vector<CacheToken> tokens;
    std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a of each word
    for (char c : text) {
        if (c == ' ') {
            tokens.push_back(hash | kWordTag);
            hash = 1469598103934665603ULL;
            continue;
        }
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    tokens.push_back(hash | kWordTag);
    return tokens;
}

std::vector<CacheToken> id_tokens(std::span<const std::int64_t> ids) {
    std::vector<CacheToken> tokens;
    tokens.reserve(ids.size());
    for (std::int64_t id : ids) tokens.push_back(static_cast<CacheToken>(id) & ~kWordTag);
    return tokens;
}

}  // namespace pdsim
