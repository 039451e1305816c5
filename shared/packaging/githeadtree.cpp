#include "githeadtree.h"

#include "gitsupport.h"
#include "gitworktree.h"

#include <utility>

namespace ddl {

using namespace gitsupport;

using TreeEntryPtr = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry_free>>;

static Error gitError(const QString &what, const QString &root)
{
    return Error::make(ErrorCode::GitError,
                       QStringLiteral("cannot %1 in %2: %3").arg(what, root, lastErrorMessage()));
}

Result<GitHeadTree> GitHeadTree::open(const GitWorkTree &workTree, const QString &folder)
{
    git_repository *repository = workTree.repository();
    const QString root = workTree.rootPath();

    git_reference *rawHead = nullptr;
    const int headRc = git_repository_head(&rawHead, repository);
    if (headRc == GIT_EUNBORNBRANCH || headRc == GIT_ENOTFOUND)
        return Error::make(ErrorCode::EmptyRepository,
                           QStringLiteral("the git repository at %1 has no commits yet: commit "
                                          "your code (git add -A && git commit), then submit again")
                               .arg(root));
    if (headRc < 0)
        return gitError(QStringLiteral("resolve HEAD"), root);
    const ReferencePtr head(rawHead);

    git_object *rawCommit = nullptr;
    if (git_reference_peel(&rawCommit, head.get(), GIT_OBJECT_COMMIT) < 0)
        return gitError(QStringLiteral("find the commit of HEAD"), root);
    const CommitPtr commit(reinterpret_cast<git_commit *>(rawCommit));

    git_tree *rawRootTree = nullptr;
    if (git_commit_tree(&rawRootTree, commit.get()) < 0)
        return gitError(QStringLiteral("read the tree of HEAD"), root);
    TreePtr tree(rawRootTree);

    if (!folder.isEmpty()) {
        git_tree_entry *rawEntry = nullptr;
        const QByteArray path = folder.toUtf8();
        const int rc = git_tree_entry_bypath(&rawEntry, tree.get(), path.constData());
        if (rc < 0 && rc != GIT_ENOTFOUND)
            return gitError(QStringLiteral("look up %1 at HEAD").arg(folder), root);
        const TreeEntryPtr entry(rawEntry);
        if (rc == GIT_ENOTFOUND || git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE)
            return Error::make(ErrorCode::NotCommitted,
                               QStringLiteral("the folder %1 is not in the last commit of %2: "
                                              "add and commit it (git add -A && git commit), "
                                              "then submit again")
                                   .arg(folder, root));
        git_tree *rawSubtree = nullptr;
        if (git_tree_lookup(&rawSubtree, repository, git_tree_entry_id(entry.get())) < 0)
            return gitError(QStringLiteral("read %1 at HEAD").arg(folder), root);
        tree.reset(rawSubtree);
    }

    char commitId[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(commitId, sizeof commitId, git_commit_id(commit.get()));
    const char *summary = git_commit_summary(commit.get());

    GitHeadTree result;
    result.m_tree = tree.release();
    result.m_repository = repository;
    result.m_commitId = QString::fromLatin1(commitId);
    result.m_commitSummary = summary ? QString::fromUtf8(summary) : QString();
    result.m_commitTime = static_cast<qint64>(git_commit_time(commit.get()));
    result.m_folder = folder;
    result.m_rootPath = root;
    return result;
}

GitHeadTree::GitHeadTree(GitHeadTree &&other) noexcept
    : m_tree(std::exchange(other.m_tree, nullptr))
    , m_repository(other.m_repository)
    , m_commitId(std::move(other.m_commitId))
    , m_commitSummary(std::move(other.m_commitSummary))
    , m_commitTime(other.m_commitTime)
    , m_folder(std::move(other.m_folder))
    , m_rootPath(std::move(other.m_rootPath))
{
}

GitHeadTree &GitHeadTree::operator=(GitHeadTree &&other) noexcept
{
    if (this != &other) {
        if (m_tree)
            git_tree_free(m_tree);
        m_tree = std::exchange(other.m_tree, nullptr);
        m_repository = other.m_repository;
        m_commitId = std::move(other.m_commitId);
        m_commitSummary = std::move(other.m_commitSummary);
        m_commitTime = other.m_commitTime;
        m_folder = std::move(other.m_folder);
        m_rootPath = std::move(other.m_rootPath);
    }
    return *this;
}

GitHeadTree::~GitHeadTree()
{
    if (m_tree)
        git_tree_free(m_tree);
}

Result<std::optional<QByteArray>> GitHeadTree::readFile(const QString &path, qint64 maxBytes) const
{
    git_tree_entry *rawEntry = nullptr;
    const QByteArray encoded = path.toUtf8();
    const int rc = git_tree_entry_bypath(&rawEntry, m_tree, encoded.constData());
    if (rc == GIT_ENOTFOUND)
        return std::optional<QByteArray>();
    if (rc < 0)
        return gitError(QStringLiteral("look up %1 at HEAD").arg(path), m_rootPath);
    const TreeEntryPtr entry(rawEntry);
    const git_filemode_t mode = git_tree_entry_filemode(entry.get());
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
        return Error::make(ErrorCode::NotAFile,
                           QStringLiteral("%1 is committed as a %2, not as a file")
                               .arg(path,
                                    mode == GIT_FILEMODE_LINK     ? QStringLiteral("symbolic link")
                                    : mode == GIT_FILEMODE_COMMIT ? QStringLiteral("submodule")
                                                                  : QStringLiteral("folder")));
    git_blob *rawBlob = nullptr;
    if (git_blob_lookup(&rawBlob, m_repository, git_tree_entry_id(entry.get())) < 0)
        return gitError(QStringLiteral("read %1 at HEAD").arg(path), m_rootPath);
    const BlobPtr blob(rawBlob);
    const qint64 size = std::min(static_cast<qint64>(git_blob_rawsize(blob.get())), maxBytes);
    return std::optional<QByteArray>(
        QByteArray(static_cast<const char *>(git_blob_rawcontent(blob.get())), size));
}

} // namespace ddl
