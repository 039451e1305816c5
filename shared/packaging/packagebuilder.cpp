#include "packagebuilder.h"

#include "archivepathcheck.h"
#include "githeadtree.h"
#include "gitsupport.h"
#include "gitworktree.h"
#include "tarzstwriter.h"

#include <QByteArray>

#include <algorithm>

namespace ddl {

namespace {

using namespace gitsupport;

// Walks one tree of a commit into the archive, depth first in git's order, which is the
// byte order of the full paths: the same tree always yields the same sequence of entries.
class TreeArchiver
{
public:
    TreeArchiver(git_repository *repository, TarZstWriter &writer, qint64 mtime)
        : m_repository(repository)
        , m_writer(writer)
        , m_mtime(mtime)
    {
    }

    Status writeTree(const git_tree *tree, const QByteArray &prefix)
    {
        const size_t count = git_tree_entrycount(tree);
        for (size_t i = 0; i < count; ++i) {
            const git_tree_entry *entry = git_tree_entry_byindex(tree, i);
            const QByteArray path = prefix + git_tree_entry_name(entry);
            if (const Status status = writeEntry(entry, path); !status)
                return status;
        }
        return Ok{};
    }

    int fileCount() const { return m_fileCount; }
    qint64 contentBytes() const { return m_contentBytes; }
    QList<QPair<QString, qint64>> largestFiles() const { return m_largest; }
    const QStringList &warnings() const { return m_warnings; }

private:
    Status writeEntry(const git_tree_entry *entry, const QByteArray &path)
    {
        switch (git_tree_entry_filemode(entry)) {
        case GIT_FILEMODE_TREE:
            return writeSubtree(entry, path);
        case GIT_FILEMODE_BLOB:
            return writeBlob(entry, path, 0644);
        case GIT_FILEMODE_BLOB_EXECUTABLE:
            return writeBlob(entry, path, 0755);
        case GIT_FILEMODE_LINK:
            return writeSymlink(entry, path);
        case GIT_FILEMODE_COMMIT: {
            char id[GIT_OID_HEXSZ + 1] = {};
            git_oid_tostr(id, sizeof id, git_tree_entry_id(entry));
            m_warnings.append(QStringLiteral("submodule %1 (at %2) is not packaged: submodules "
                                             "are skipped; vendor its files into the repository "
                                             "if the job needs them")
                                  .arg(QString::fromUtf8(path), QString::fromLatin1(id)));
            return Ok{};
        }
        default:
            m_warnings.append(QStringLiteral("%1 has an unknown git file mode %2 and is skipped")
                                  .arg(QString::fromUtf8(path))
                                  .arg(int(git_tree_entry_filemode(entry)), 0, 8));
            return Ok{};
        }
    }

    Status writeSubtree(const git_tree_entry *entry, const QByteArray &path)
    {
        git_tree *rawTree = nullptr;
        if (git_tree_lookup(&rawTree, m_repository, git_tree_entry_id(entry)) < 0)
            return gitError(path);
        const TreePtr tree(rawTree);
        if (const Status status = m_writer.addDirectory(path + '/', 0755, m_mtime); !status)
            return status;
        return writeTree(tree.get(), path + '/');
    }

    Status writeBlob(const git_tree_entry *entry, const QByteArray &path, int permissions)
    {
        // One blob in memory at a time, released before the next one is read.
        git_blob *rawBlob = nullptr;
        if (git_blob_lookup(&rawBlob, m_repository, git_tree_entry_id(entry)) < 0)
            return gitError(path);
        const BlobPtr blob(rawBlob);
        const auto size = static_cast<qint64>(git_blob_rawsize(blob.get()));
        if (const Status status = m_writer.beginFile(path, permissions, size, m_mtime); !status)
            return status;
        const char *data = static_cast<const char *>(git_blob_rawcontent(blob.get()));
        if (const Status status = m_writer.writeData(data, size); !status)
            return status;
        ++m_fileCount;
        m_contentBytes += size;
        // What a user should see before sending: the few files that make the package big.
        const auto place = std::find_if(m_largest.begin(),
                                        m_largest.end(),
                                        [size](const auto &file) { return file.second < size; });
        m_largest.insert(place, {QString::fromUtf8(path), size});
        if (m_largest.size() > PackageInfo::LargestFilesKept)
            m_largest.removeLast();
        return Ok{};
    }

    Status writeSymlink(const git_tree_entry *entry, const QByteArray &path)
    {
        git_blob *rawBlob = nullptr;
        if (git_blob_lookup(&rawBlob, m_repository, git_tree_entry_id(entry)) < 0)
            return gitError(path);
        const BlobPtr blob(rawBlob);
        const QByteArray target(static_cast<const char *>(git_blob_rawcontent(blob.get())),
                                static_cast<qsizetype>(git_blob_rawsize(blob.get())));
        // A link that could leave the package would be refused when the package is extracted.
        if (const QString problem = archivepath::symlinkTargetProblem(path, target);
            !problem.isEmpty()) {
            m_warnings.append(QStringLiteral("symlink %1 is not packaged: %2")
                                  .arg(QString::fromUtf8(path), problem));
            return Ok{};
        }
        if (const Status status = m_writer.addSymlink(path, target, m_mtime); !status)
            return status;
        ++m_fileCount;
        return Ok{};
    }

    static Error gitError(const QByteArray &path)
    {
        return Error::make(ErrorCode::GitError,
                           QStringLiteral("cannot read %1 from the repository: %2")
                               .arg(QString::fromUtf8(path), lastErrorMessage()));
    }

    git_repository *m_repository;
    TarZstWriter &m_writer;
    qint64 m_mtime;
    int m_fileCount = 0;
    qint64 m_contentBytes = 0;
    QList<QPair<QString, qint64>> m_largest;
    QStringList m_warnings;
};

} // namespace

PackageBuilder::PackageBuilder(const QString &folder, Scope scope)
    : m_folder(folder)
    , m_scope(scope)
{
}

Result<PackageInfo> PackageBuilder::build(const QString &archivePath) const
{
    Result<GitWorkTree> workTree = GitWorkTree::open(m_folder);
    if (!workTree)
        return workTree.error();
    const QString root = workTree->rootPath();
    QString folder;
    if (m_scope == Scope::FolderOnly) {
        Result<QString> relative = workTree->relativePath(m_folder);
        if (!relative)
            return relative.error();
        folder = *relative;
    }

    Result<GitHeadTree> head = GitHeadTree::open(*workTree, folder);
    if (!head)
        return head.error();

    const Result<WorkTreeStatus> status = workTree->status(folder);
    if (!status)
        return status.error();
    if (!status->isClean())
        return Error::make(ErrorCode::DirtyTree,
                           QStringLiteral("the working tree of %1 has uncommitted changes:\n  %2\n"
                                          "commit or stash your changes (git stash -u), then "
                                          "submit again")
                               .arg(root, status->describe().join(QStringLiteral("\n  "))));

    TarZstWriter writer;
    if (const Status opened = writer.open(archivePath); !opened)
        return opened.error();
    TreeArchiver archiver(workTree->repository(), writer, head->commitTime());
    if (const Status written = archiver.writeTree(head->tree(), {}); !written)
        return written.error();
    Result<WrittenArchive> archive = writer.commit();
    if (!archive)
        return archive.error();

    PackageInfo info;
    info.archivePath = archive->path;
    info.sha256 = archive->sha256;
    info.size = archive->size;
    info.folder = folder;
    info.commitId = head->commitId();
    info.commitSummary = head->commitSummary();
    info.fileCount = archiver.fileCount();
    info.contentBytes = archiver.contentBytes();
    info.largestFiles = archiver.largestFiles();
    info.warnings = archiver.warnings();
    return info;
}

} // namespace ddl
