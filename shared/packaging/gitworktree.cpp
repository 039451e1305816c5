#include "gitworktree.h"

#include "gitsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <utility>

namespace ddl {

namespace {

QString operationName(int state)
{
    switch (state) {
    case GIT_REPOSITORY_STATE_NONE:
        return {};
    case GIT_REPOSITORY_STATE_MERGE:
        return QStringLiteral("merge");
    case GIT_REPOSITORY_STATE_REVERT:
    case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
        return QStringLiteral("revert");
    case GIT_REPOSITORY_STATE_CHERRYPICK:
    case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
        return QStringLiteral("cherry-pick");
    case GIT_REPOSITORY_STATE_BISECT:
        return QStringLiteral("bisect");
    case GIT_REPOSITORY_STATE_REBASE:
    case GIT_REPOSITORY_STATE_REBASE_INTERACTIVE:
    case GIT_REPOSITORY_STATE_REBASE_MERGE:
        return QStringLiteral("rebase");
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX:
        return QStringLiteral("am");
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE:
        return QStringLiteral("am or rebase");
    default:
        return QStringLiteral("unknown operation");
    }
}

QChar indexCode(unsigned int flags)
{
    if (flags & GIT_STATUS_INDEX_NEW)
        return u'A';
    if (flags & GIT_STATUS_INDEX_MODIFIED)
        return u'M';
    if (flags & GIT_STATUS_INDEX_DELETED)
        return u'D';
    if (flags & GIT_STATUS_INDEX_RENAMED)
        return u'R';
    if (flags & GIT_STATUS_INDEX_TYPECHANGE)
        return u'T';
    return u' ';
}

QChar workTreeCode(unsigned int flags)
{
    if (flags & GIT_STATUS_WT_MODIFIED)
        return u'M';
    if (flags & GIT_STATUS_WT_DELETED)
        return u'D';
    if (flags & GIT_STATUS_WT_RENAMED)
        return u'R';
    if (flags & GIT_STATUS_WT_TYPECHANGE)
        return u'T';
    if (flags & GIT_STATUS_WT_UNREADABLE)
        return u'!';
    return u' ';
}

GitFileChange toChange(const git_status_entry &entry)
{
    const unsigned int flags = entry.status;
    const git_diff_delta *delta =
        entry.head_to_index ? entry.head_to_index : entry.index_to_workdir;
    QString path = delta ? QString::fromUtf8(delta->new_file.path) : QString();
    if (entry.head_to_index && (flags & GIT_STATUS_INDEX_RENAMED))
        path = QString::fromUtf8(entry.head_to_index->old_file.path) + QStringLiteral(" -> ") +
               QString::fromUtf8(entry.head_to_index->new_file.path);

    if (flags & GIT_STATUS_CONFLICTED)
        return {QStringLiteral("UU"), path};
    if ((flags & GIT_STATUS_WT_NEW) && indexCode(flags) == u' ')
        return {QStringLiteral("??"), path};
    return {QString(indexCode(flags)) + workTreeCode(flags), path};
}

// True when a path of the status (relative to the root) lies in folder ("" for the root).
bool isInside(const char *path, const QByteArray &folderPrefix)
{
    return path && (folderPrefix.isEmpty() || QByteArray(path).startsWith(folderPrefix));
}

bool touches(const git_status_entry &entry, const QByteArray &folderPrefix)
{
    for (const git_diff_delta *delta : {entry.head_to_index, entry.index_to_workdir}) {
        if (delta && (isInside(delta->old_file.path, folderPrefix) ||
                      isInside(delta->new_file.path, folderPrefix)))
            return true;
    }
    return false;
}

} // namespace

QStringList WorkTreeStatus::describe() const
{
    QStringList lines;
    if (!operation.isEmpty())
        lines.append(QStringLiteral("(%1 in progress)").arg(operation));
    for (const GitFileChange &change : changes)
        lines.append(change.toPorcelain());
    return lines;
}

GitWorkTree::GitWorkTree(git_repository *repository, QString rootPath)
    : m_repository(repository)
    , m_rootPath(std::move(rootPath))
{
}

GitWorkTree::GitWorkTree(GitWorkTree &&other) noexcept
    : m_repository(std::exchange(other.m_repository, nullptr))
    , m_rootPath(std::move(other.m_rootPath))
{
}

GitWorkTree &GitWorkTree::operator=(GitWorkTree &&other) noexcept
{
    if (this != &other) {
        if (m_repository)
            git_repository_free(m_repository);
        m_repository = std::exchange(other.m_repository, nullptr);
        m_rootPath = std::move(other.m_rootPath);
    }
    return *this;
}

GitWorkTree::~GitWorkTree()
{
    if (m_repository)
        git_repository_free(m_repository);
}

Result<GitWorkTree> GitWorkTree::open(const QString &folder)
{
    gitsupport::ensureInitialized();
    const QFileInfo info(folder);
    if (!info.isDir())
        return Error::make(ErrorCode::NotFound, QStringLiteral("%1 is not a folder").arg(folder));

    git_repository *repository = nullptr;
    const QByteArray start = QFile::encodeName(info.absoluteFilePath());
    const int rc = git_repository_open_ext(&repository, start.constData(), 0, nullptr);
    if (rc == GIT_ENOTFOUND)
        return Error::make(ErrorCode::NotARepository,
                           QStringLiteral("%1 is not inside a git repository: run `git init` there "
                                          "and commit your code, then submit again")
                               .arg(folder));
    if (rc < 0)
        return Error::make(ErrorCode::GitError,
                           QStringLiteral("cannot open the git repository at %1: %2")
                               .arg(folder, gitsupport::lastErrorMessage()));

    const char *workdir = git_repository_workdir(repository);
    if (git_repository_is_bare(repository) || !workdir) {
        git_repository_free(repository);
        return Error::make(ErrorCode::BareRepository,
                           QStringLiteral("the git repository at %1 is bare: it has no working "
                                          "tree to package; use a clone of it")
                               .arg(folder));
    }
    QString root = QDir::cleanPath(QFile::decodeName(workdir));
    return GitWorkTree(repository, std::move(root));
}

Result<QString> GitWorkTree::relativePath(const QString &folder) const
{
    const QString canonicalRoot = QFileInfo(m_rootPath).canonicalFilePath();
    const QString canonicalFolder = QFileInfo(folder).canonicalFilePath();
    if (canonicalRoot.isEmpty() || canonicalFolder.isEmpty())
        return Error::make(ErrorCode::NotFound, QStringLiteral("%1 is not a folder").arg(folder));
    if (canonicalFolder == canonicalRoot)
        return QString();
    const QString relative = QDir(canonicalRoot).relativeFilePath(canonicalFolder);
    if (!canonicalFolder.startsWith(canonicalRoot + u'/') || relative == QLatin1String(".git") ||
        relative.startsWith(QLatin1String(".git/")))
        return Error::make(
            ErrorCode::OutsideWorkTree,
            QStringLiteral("%1 is not a folder of the working tree of %2").arg(folder, m_rootPath));
    return relative;
}

Result<WorkTreeStatus> GitWorkTree::status(const QString &subfolder) const
{
    WorkTreeStatus result;
    result.operation = operationName(git_repository_state(m_repository));

    git_status_options options = GIT_STATUS_OPTIONS_INIT;
    options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    // Like `git status --porcelain`: untracked files count (an untracked folder shows once, as
    // "dir/"), ignored ones do not, renames in the index are paired.
    options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX |
                    GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;

    git_status_list *rawList = nullptr;
    if (git_status_list_new(&rawList, m_repository, &options) < 0)
        return Error::make(ErrorCode::GitError,
                           QStringLiteral("cannot read the status of %1: %2")
                               .arg(m_rootPath, gitsupport::lastErrorMessage()));
    const gitsupport::StatusListPtr list(rawList);

    // Status paths use '/' and end a folder with it, so the prefix matches the folder's contents.
    const QByteArray prefix = subfolder.isEmpty() ? QByteArray() : subfolder.toUtf8() + '/';
    const size_t count = git_status_list_entrycount(list.get());
    for (size_t i = 0; i < count; ++i) {
        const git_status_entry *entry = git_status_byindex(list.get(), i);
        if (!entry || entry->status == GIT_STATUS_CURRENT || (entry->status & GIT_STATUS_IGNORED))
            continue;
        if (!touches(*entry, prefix))
            continue;
        result.changes.append(toChange(*entry));
    }
    return result;
}

} // namespace ddl
