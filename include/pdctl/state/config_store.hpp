#pragma once
// Every config that ran, kept on the coordinator node: <state_dir>/<cluster>/configs/ID.json, one
// document per distinct config, named by its sha256 (content-addressed: a config that ran a hundred
// times is kept once). A document holds the files the config was read from, whole (the cluster file,
// its env and profile files: a run's config can be read again exactly), and a digest of each `files:`
// source (those are pushed to the nodes, and can be large). Each run's journal record names the ID.
// Pure: the document, its ID, the commands that move it.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/command.hpp"

namespace pdctl::state::config_store {

// One `files:` entry as it was when the run began.
struct PushedFile {
    std::string source;  // as the config names it, resolved against the cluster file
    std::string dest;
    std::string sha256;  // "" when the file could not be read (the run itself says so)
};

struct Bundle {
    std::string entry;  // the cluster file's path, as given to the run
    std::vector<config::SourceFile> files;
    std::vector<PushedFile> pushed;
};

// The document (canonical JSON: the same bundle gives the same text, so the same ID).
std::string to_document(const Bundle& bundle);
// Throws std::runtime_error naming what is wrong with a document that is not a bundle.
Bundle parse_document(const std::string& document);
// The document's sha256, lowercase hex.
std::string bundle_id(const std::string& document);
// 64 lowercase hex digits: what a journal line must hold before it is used in a path.
bool is_bundle_id(const std::string& id);

// <cluster_dir>/configs/<id>.json
std::string document_path(const std::string& cluster_dir, const std::string& id);
// Keeps `document` under its ID (nothing when it is already kept); the text travels on stdin.
exec::Command put_command(const std::string& cluster_dir, const std::string& id, std::string document);
// The document kept under `id` (exit 1 with nothing on stdout when there is none).
exec::Command get_command(const std::string& cluster_dir, const std::string& id);

}  // namespace pdctl::state::config_store
