#include "datasetmanifest.h"

#include "archivepathcheck.h"
#include "core/sha256.h"
#include "core/sha256stream.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QSet>
#include <QtConcurrent>

#include <algorithm>
#include <atomic>
#include <optional>

namespace ddl {

static const QString Kind = QStringLiteral("ddl-dataset");

static Error manifestError(const QString &message, const QString &field = QStringLiteral("files"))
{
    return Error::make(ErrorCode::BadManifest, message, field);
}

Status DatasetManifest::checkFiles(QList<ManifestFile> &files)
{
    if (files.size() > MaxFiles)
        return manifestError(QStringLiteral("a dataset holds at most %1 files, this one %2")
                                 .arg(MaxFiles)
                                 .arg(files.size()));
    std::sort(files.begin(), files.end(), [](const ManifestFile &a, const ManifestFile &b) {
        return a.path < b.path;
    });
    QSet<QString> folders;
    for (qsizetype i = 0; i < files.size(); ++i) {
        const ManifestFile &file = files[i];
        const QString field = QStringLiteral("files[%1]").arg(i);
        const QByteArray path = file.path.toUtf8();
        const QString problem = archivepath::entryPathProblem(path);
        if (file.path.isEmpty() || !problem.isEmpty() || path.contains('\0') ||
            archivepath::components(path).join('/') != path) {
            return manifestError(
                QStringLiteral("%1.path %2 is not a clean relative path%3")
                    .arg(field, file.path, problem.isEmpty() ? QString() : u": " + problem),
                field + QStringLiteral(".path"));
        }
        if (i > 0 && files[i - 1].path == file.path)
            return manifestError(QStringLiteral("%1.path %2 appears twice").arg(field, file.path),
                                 field + QStringLiteral(".path"));
        if (file.size < 0)
            return manifestError(QStringLiteral("%1.size must be >= 0").arg(field),
                                 field + QStringLiteral(".size"));
        if (!isSha256Hex(file.sha256))
            return manifestError(
                QStringLiteral("%1.sha256 must be 64 lowercase hex characters").arg(field),
                field + QStringLiteral(".sha256"));
        for (qsizetype slash = file.path.indexOf(u'/'); slash >= 0;
             slash = file.path.indexOf(u'/', slash + 1)) {
            folders.insert(file.path.left(slash));
        }
    }
    // "a" as a file and "a/b" as another cannot both be laid out.
    for (const ManifestFile &file : std::as_const(files)) {
        if (folders.contains(file.path))
            return manifestError(QStringLiteral("%1 is both a file and a folder").arg(file.path));
    }
    return Ok{};
}

Result<DatasetManifest>
DatasetManifest::scan(const QString &folder,
                      const std::function<void(qint64, qint64)> &progress,
                      const std::function<Result<QString>(const QString &, qint64)> &hashFile,
                      int threads)
{
    const QFileInfo root(folder);
    if (!root.isDir())
        return Error::make(ErrorCode::NotFound, QStringLiteral("%1 is not a folder").arg(folder));
    DatasetManifest manifest;
    const QDir base(root.absoluteFilePath());
    QList<QFileInfo> found;
    qint64 total = 0;
    QDirIterator it(base.path(),
                    QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        // From the walk: its file type is known without a stat of its own.
        const QFileInfo info = it.nextFileInfo();
        const QString relative = base.relativeFilePath(info.absoluteFilePath());
        if (info.isSymLink()) {
            manifest.m_warnings.append(
                QStringLiteral("symlink %1 is left out of the dataset").arg(relative));
            continue;
        }
        if (info.isDir())
            continue;
        if (!info.isFile()) {
            manifest.m_warnings.append(
                QStringLiteral("%1 is left out: it is not a regular file").arg(relative));
            continue;
        }
        if (found.size() >= MaxFiles)
            return manifestError(
                QStringLiteral("%1 holds more than %2 files").arg(folder).arg(MaxFiles));
        found.append(info);
        total += info.size();
    }
    // Each thread takes the next file not yet taken; digests land in their file's slot.
    QList<QString> digests(found.size());
    std::atomic<qsizetype> next{0};
    std::atomic<bool> failed{false};
    QMutex mutex; // guards what follows, and orders the progress calls
    std::optional<Error> firstError;
    qsizetype firstErrorAt = found.size();
    qint64 done = 0;
    const auto work = [&] {
        for (qsizetype i = next++; i < found.size() && !failed; i = next++) {
            const QString path = found.at(i).absoluteFilePath();
            Result<QString> digest =
                hashFile ? hashFile(path, found.at(i).size()) : sha256OfFile(path);
            QMutexLocker locker(&mutex);
            if (!digest) {
                // Of the files that failed, the first in the folder's order is told.
                if (i < firstErrorAt) {
                    firstError = digest.error();
                    firstErrorAt = i;
                }
                failed = true;
                return;
            }
            digests[i] = *digest;
            done += found.at(i).size();
            if (progress)
                progress(done, total);
        }
    };
    QList<QFuture<void>> helpers;
    for (int t = 1; t < threads && t < found.size(); ++t)
        helpers.append(QtConcurrent::run(work));
    work();
    // A helper the pool had not started yet is run here, and finds nothing left.
    for (QFuture<void> &helper : helpers)
        helper.waitForFinished();
    if (firstError)
        return *firstError;
    manifest.m_files.reserve(found.size());
    for (qsizetype i = 0; i < found.size(); ++i) {
        const QFileInfo &info = found.at(i);
        manifest.m_files.append(ManifestFile{base.relativeFilePath(info.absoluteFilePath()),
                                             info.size(),
                                             digests.at(i),
                                             // The owner's bit, from the walk's stat (isExecutable()
                                             // asks access() once a file).
                                             info.permission(QFileDevice::ExeOwner)});
    }
    if (Status checked = checkFiles(manifest.m_files); !checked)
        return checked.error();
    return manifest;
}

Result<DatasetManifest> DatasetManifest::parse(const QByteArray &json)
{
    if (json.size() > MaxJsonBytes)
        return manifestError(QStringLiteral("the manifest is over %1 bytes").arg(MaxJsonBytes));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject())
        return manifestError(
            QStringLiteral("the manifest is not a JSON object: %1").arg(parseError.errorString()),
            QString());
    const QJsonObject object = document.object();
    if (object.value(QStringLiteral("kind")).toString() != Kind ||
        object.value(QStringLiteral("version")).toInt() != 1) {
        return manifestError(
            QStringLiteral("not a DDL dataset manifest (kind \"%1\", version 1)").arg(Kind),
            QStringLiteral("kind"));
    }
    DatasetManifest manifest;
    const QJsonArray files = object.value(QStringLiteral("files")).toArray();
    if (files.size() > MaxFiles)
        return manifestError(QStringLiteral("a dataset holds at most %1 files").arg(MaxFiles));
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QJsonValue size = file.value(QStringLiteral("size"));
        manifest.m_files.append(ManifestFile{file.value(QStringLiteral("path")).toString(),
                                             size.isDouble() ? size.toInteger(-1) : -1,
                                             file.value(QStringLiteral("sha256")).toString(),
                                             file.value(QStringLiteral("executable")).toBool()});
    }
    if (Status checked = checkFiles(manifest.m_files); !checked)
        return checked.error();
    return manifest;
}

// A string as QJsonDocument writes it: plain ASCII as it is, anything that needs escaping or is
// not ASCII through Qt's own writer, so the bytes match it exactly.
static void appendJsonString(QByteArray &json, const QString &text)
{
    const bool plain = std::all_of(text.cbegin(), text.cend(), [](QChar c) {
        return c.unicode() >= 0x20 && c.unicode() < 0x7f && c != u'"' && c != u'\\';
    });
    if (!plain) {
        const QByteArray quoted = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
        json.append(quoted.constData() + 1, quoted.size() - 2); // without the [ ]
        return;
    }
    const qsizetype at = json.size();
    json.resize(at + text.size() + 2);
    char *out = json.data() + at;
    *out++ = '"';
    for (const QChar c : text)
        *out++ = char(c.unicode());
    *out = '"';
}

// The canonical bytes QJsonDocument::Compact gives (keys sorted, no spaces), written directly:
// building 10,000 QJsonObjects took 25 ms, and the digest needs the bytes again.
QByteArray DatasetManifest::toJson() const
{
    QByteArray json;
    json.reserve(32 + m_files.size() * 140);
    json.append("{\"files\":[");
    for (qsizetype i = 0; i < m_files.size(); ++i) {
        const ManifestFile &file = m_files[i];
        if (i > 0)
            json.append(',');
        json.append(file.executable ? "{\"executable\":true,\"path\":" : "{\"path\":");
        appendJsonString(json, file.path);
        json.append(",\"sha256\":");
        appendJsonString(json, file.sha256);
        json.append(",\"size\":").append(QByteArray::number(file.size)).append('}');
    }
    json.append("],\"kind\":");
    appendJsonString(json, Kind);
    json.append(",\"version\":1}");
    return json;
}

QString DatasetManifest::sha256() const
{
    Sha256Stream hash;
    hash.add(toJson());
    return hash.finishHex();
}

qint64 DatasetManifest::totalSize() const
{
    qint64 total = 0;
    for (const ManifestFile &file : m_files)
        total += file.size;
    return total;
}

} // namespace ddl
