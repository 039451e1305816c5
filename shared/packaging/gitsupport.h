#pragma once

#include <QString>

#include <git2.h>

#include <memory>

namespace ddl::gitsupport {

// Internal to shared/packaging: libgit2 start-up, error text and owning pointers.

// Calls git_libgit2_init() once per process, thread-safely.
void ensureInitialized();

// The message of libgit2's last error on this thread, or a fallback when it has none.
QString lastErrorMessage();

template <auto FreeFunction> struct Deleter
{
    template <typename T> void operator()(T *object) const { FreeFunction(object); }
};

using ReferencePtr = std::unique_ptr<git_reference, Deleter<git_reference_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob_free>>;
using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object_free>>;
using StatusListPtr = std::unique_ptr<git_status_list, Deleter<git_status_list_free>>;

} // namespace ddl::gitsupport
