#include "filehashcache.h"

#include "core/sha256stream.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMutex>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>
#include <sys/stat.h>

namespace ddl {

std::atomic<qint64> FileHashCache::s_totalBytesHashed{0};

static QString defaultPath()
{
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    if (base.isEmpty())
        base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    return QDir(base).filePath(QStringLiteral("ddl/file-hashes"));
}

FileHashCache::FileHashCache(const QString &path)
    : m_path(path.isEmpty() ? defaultPath() : path)
{
}

static std::optional<FileHashCache::Key> keyFrom(const struct stat &st)
{
    if (!S_ISREG(st.st_mode))
        return std::nullopt;
    return FileHashCache::Key{qint64(st.st_size),
                              qint64(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                              quint64(st.st_ino)};
}

std::optional<FileHashCache::Key> FileHashCache::keyOf(const QString &absolutePath)
{
    struct stat st;
    if (::stat(QFile::encodeName(absolutePath).constData(), &st) != 0)
        return std::nullopt;
    return keyFrom(st);
}

std::optional<FileHashCache::Key> FileHashCache::keyOfOpen(int fd)
{
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0)
        return std::nullopt;
    return keyFrom(st);
}

// One line per file: sha256-hex size mtime-ns inode used path. A path with a line break is
// never cached.
void FileHashCache::load(const QString &path, QHash<QString, Entry> &into) const
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return;
    // Read whole, at most MaxFileBytes, as pendingLines() reads its file: readLine(64 KiB) mapped
    // and unmapped a buffer of that size a line, 30,000 system calls for 10,000 files.
    const QList<QByteArray> lines = file.read(MaxFileBytes).split('\n');
    for (const QByteArray &line : lines) {
        if (into.size() >= MaxEntries)
            break;
        const QList<QByteArray> fields = line.split(' ');
        if (fields.size() < 6 || fields.at(0).size() != 64)
            continue; // a damaged line costs one hash, nothing else
        Entry entry;
        entry.sha256 = QByteArray::fromHex(fields.at(0));
        entry.key =
            Key{fields.at(1).toLongLong(), fields.at(2).toLongLong(), fields.at(3).toULongLong()};
        entry.used = fields.at(4).toULongLong();
        // The path is the rest of the line, spaces included.
        const qsizetype pathStart = fields.at(0).size() + fields.at(1).size() +
                                    fields.at(2).size() + fields.at(3).size() +
                                    fields.at(4).size() + 5;
        if (entry.sha256.size() == 32)
            into.insert(QString::fromUtf8(line.mid(pathStart)), entry);
    }
}

void FileHashCache::ensureLoaded()
{
    if (m_loaded)
        return;
    load(m_path, m_entries);
    for (const Entry &entry : std::as_const(m_entries))
        m_clock = std::max(m_clock, entry.used);
    m_loaded = true;
}

std::optional<QString> FileHashCache::cached(const QString &absolutePath)
{
    const std::optional<Key> key = keyOf(absolutePath);
    return key ? cached(absolutePath, *key) : std::nullopt;
}

std::optional<QString> FileHashCache::cached(const QString &absolutePath, const Key &key)
{
    QMutexLocker locker(&m_mutex);
    ensureLoaded();
    auto found = m_entries.find(absolutePath);
    if (found == m_entries.end() || found->key != key)
        return std::nullopt;
    found->used = ++m_clock;
    m_changed = true;
    ++m_hits;
    return QString::fromLatin1(found->sha256.toHex());
}

Result<QString> FileHashCache::sha256(const QString &absolutePath,
                                      qint64 *bytesRead,
                                      const std::atomic<bool> *abort)
{
    if (bytesRead)
        *bytesRead = 0;
    const std::optional<Key> before = keyOf(absolutePath);
    if (before) {
        if (std::optional<QString> known = cached(absolutePath, *before))
            return *known;
    }
    QFile file(absolutePath);
    if (!file.open(QIODevice::ReadOnly))
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot read %1: %2").arg(absolutePath, file.errorString()));
    Sha256Stream hash;
    // Sized to the file (a small file does not map and fault in a buffer of 1 MiB), one byte more
    // so that a file that grew is read to its end in the same loop.
    const qint64 expected = before ? before->size : 0;
    QByteArray buffer(qBound(qint64(4096), expected + 1, qint64(1) << 20), Qt::Uninitialized);
    qint64 read = 0;
    for (;;) {
        if (abort && abort->load())
            return Error::make(ErrorCode::Aborted,
                               QStringLiteral("hashing %1 was cancelled").arg(absolutePath));
        const qint64 n = file.read(buffer.data(), buffer.size());
        if (n < 0)
            return Error::make(
                ErrorCode::IoError,
                QStringLiteral("cannot read %1: %2").arg(absolutePath, file.errorString()));
        if (n == 0)
            break;
        read += n;
        hash.add(QByteArrayView(buffer.constData(), n));
    }
    m_bytesHashed += read;
    s_totalBytesHashed += read;
    if (bytesRead)
        *bytesRead = read;
    const QString digest = hash.finishHex();
    // Only a file that stayed the same while it was read, and whose time stamp lies clearly in
    // the past, is remembered: a write in the same clock tick as the hashing would otherwise
    // leave a stale entry that looks valid (git's "racy clean" problem).
    // The open file's (no second walk of the path): one replaced meanwhile under that path
    // differs from before in its inode, so nothing is remembered for it.
    const std::optional<Key> after = keyOfOpen(file.handle());
    const qint64 nowNs = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
    if (before && after && *before == *after && after->mtimeNs < nowNs - RacyWindowNs &&
        !absolutePath.contains(u'\n')) {
        QMutexLocker locker(&m_mutex);
        ensureLoaded();
        m_entries.insert(absolutePath,
                         Entry{*after, QByteArray::fromHex(digest.toLatin1()), ++m_clock});
        m_changed = true;
    }
    return digest;
}

void FileHashCache::remember(const QString &absolutePath, const QString &sha256Hex)
{
    const std::optional<Key> key = keyOf(absolutePath);
    const qint64 nowNs = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
    if (!key || key->mtimeNs >= nowNs - RacyWindowNs || absolutePath.contains(u'\n'))
        return;
    QMutexLocker locker(&m_mutex);
    ensureLoaded();
    m_entries.insert(absolutePath,
                     Entry{*key, QByteArray::fromHex(sha256Hex.toLatin1()), ++m_clock});
    m_changed = true;
}

Status FileHashCache::save()
{
    QMutexLocker locker(&m_mutex);
    if (!m_changed)
        return Ok{};
    // What another run saved meanwhile is kept, unless this run knows the same path.
    QHash<QString, Entry> merged;
    load(m_path, merged);
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it)
        merged.insert(it.key(), it.value());
    QList<QHash<QString, Entry>::const_iterator> order;
    order.reserve(merged.size());
    for (auto it = merged.cbegin(); it != merged.cend(); ++it)
        order.append(it);
    if (order.size() > MaxEntries) {
        std::nth_element(order.begin(),
                         order.begin() + MaxEntries,
                         order.end(),
                         [](const auto &a, const auto &b) { return a->used > b->used; });
        order.resize(MaxEntries);
    }
    if (!QDir().mkpath(QFileInfo(m_path).absolutePath()))
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot create the folder of %1").arg(m_path));
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly))
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString()));
    for (const auto &it : std::as_const(order)) {
        const Entry &entry = it.value();
        file.write(entry.sha256.toHex() + ' ' + QByteArray::number(entry.key.size) + ' ' +
                   QByteArray::number(entry.key.mtimeNs) + ' ' +
                   QByteArray::number(entry.key.inode) + ' ' + QByteArray::number(entry.used) +
                   ' ' + it.key().toUtf8() + '\n');
    }
    // A cache needs no fsync: a lost file costs one hash of each file, nothing else.
    file.setDirectWriteFallback(false);
    if (!file.commit())
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString()));
    m_changed = false;
    return Ok{};
}

// Every run of this process that records pending uploads goes through these, one at a time.
static QMutex s_pendingMutex;

// A line is "upload-id size mtime-ns inode path"; the path is the rest of the line, spaces
// included, and is compared whole (a path that ends like another's is not it).
struct PendingLine
{
    QByteArray id;
    QByteArray key; // "size mtime-ns inode"
    QByteArray path;
};

static std::optional<PendingLine> splitPending(const QByteArray &line)
{
    qsizetype at = -1;
    QList<qsizetype> spaces;
    while (spaces.size() < 4 && (at = line.indexOf(' ', at + 1)) >= 0)
        spaces.append(at);
    if (spaces.size() < 4)
        return std::nullopt;
    return PendingLine{line.left(spaces[0]),
                       line.mid(spaces[0] + 1, spaces[3] - spaces[0] - 1),
                       line.mid(spaces[3] + 1)};
}

static QByteArray pendingKey(qint64 size, qint64 mtimeNs, quint64 inode)
{
    return QByteArray::number(size) + ' ' + QByteArray::number(mtimeNs) + ' ' +
           QByteArray::number(inode);
}

static bool isPendingFor(const QByteArray &line, const QByteArray &path)
{
    const std::optional<PendingLine> fields = splitPending(line);
    return fields && fields->path == path;
}

QList<QByteArray> FileHashCache::pendingLines() const
{
    QFile file(m_path + QStringLiteral(".uploads"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    lines.removeAll(QByteArray());
    return lines;
}

void FileHashCache::writePendingLines(const QList<QByteArray> &lines) const
{
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QSaveFile file(m_path + QStringLiteral(".uploads"));
    if (!file.open(QIODevice::WriteOnly))
        return; // costs a resend from the start next time only
    for (const QByteArray &line :
         lines.mid(std::max<qsizetype>(0, lines.size() - MaxPendingUploads)))
        file.write(line + '\n');
    file.setDirectWriteFallback(false);
    if (!file.commit())
        qWarning(
            "cannot write %s: %s", qPrintable(file.fileName()), qPrintable(file.errorString()));
}

std::optional<QString> FileHashCache::pendingUpload(const QString &absolutePath) const
{
    const std::optional<Key> key = keyOf(absolutePath);
    if (!key || absolutePath.contains(u'\n'))
        return std::nullopt;
    const QByteArray wantedKey = pendingKey(key->size, key->mtimeNs, key->inode);
    const QByteArray wantedPath = absolutePath.toUtf8();
    QMutexLocker locker(&s_pendingMutex);
    const QList<QByteArray> lines = pendingLines();
    for (auto line = lines.crbegin(); line != lines.crend(); ++line) {
        const std::optional<PendingLine> fields = splitPending(*line);
        if (fields && fields->path == wantedPath && fields->key == wantedKey)
            return QString::fromLatin1(fields->id);
    }
    return std::nullopt;
}

void FileHashCache::rememberPendingUpload(const QString &absolutePath,
                                          const QString &uploadId) const
{
    const std::optional<Key> key = keyOf(absolutePath);
    if (!key || absolutePath.contains(u'\n'))
        return;
    const QByteArray path = absolutePath.toUtf8();
    QMutexLocker locker(&s_pendingMutex);
    QList<QByteArray> lines = pendingLines();
    lines.removeIf([&path](const QByteArray &line) { return isPendingFor(line, path); });
    lines.append(uploadId.toLatin1() + ' ' + pendingKey(key->size, key->mtimeNs, key->inode) + ' ' +
                 path);
    writePendingLines(lines);
}

void FileHashCache::forgetPendingUpload(const QString &absolutePath) const
{
    const QByteArray path = absolutePath.toUtf8();
    QMutexLocker locker(&s_pendingMutex);
    QList<QByteArray> lines = pendingLines();
    if (lines.removeIf([&path](const QByteArray &line) { return isPendingFor(line, path); }) > 0)
        writePendingLines(lines);
}

} // namespace ddl
