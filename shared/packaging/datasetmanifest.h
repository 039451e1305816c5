#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace ddl {

// One file of a dataset: where it lies below the dataset's root, and the blob that holds it.
struct ManifestFile
{
    QString path; // '/'-separated, relative, no "." or ".." components
    qint64 size = 0;
    QString sha256;
    bool executable = false;

    bool operator==(const ManifestFile &) const = default;
};

// A dataset as the server stores it: a list of files, each a content-addressed blob. The
// manifest is itself a blob (its canonical JSON), so the same folder gives the same digest on
// every machine, a dataset named under ten jobs is stored once, and a changed dataset shares
// every unchanged file with the old one.
class DatasetManifest
{
public:
    static constexpr qsizetype MaxFiles = 1'000'000;
    static constexpr qsizetype MaxJsonBytes = 256LL << 20;

    // Walks folder and hashes every regular file (symlinks and special files are left out, and
    // said so in warnings). progress(bytesHashed, bytesTotal) is called as files are hashed.
    // hashFile(absolutePath, size) gives a file's digest (a cache may answer without reading it;
    // size is what the walk saw);
    // without one every file is read. threads > 1: that many files are hashed at once (the
    // calling thread and pool threads), so hashFile must be safe to call from several threads;
    // progress is still called one file at a time, its figures growing.
    static Result<DatasetManifest>
    scan(const QString &folder,
         const std::function<void(qint64, qint64)> &progress = {},
         const std::function<Result<QString>(const QString &, qint64)> &hashFile = {},
         int threads = 1);
    // Reads a manifest's JSON, refusing paths that would leave the dataset's folder, duplicate
    // paths, bad digests and sizes.
    static Result<DatasetManifest> parse(const QByteArray &json);

    QByteArray toJson() const;
    QString sha256() const;
    const QList<ManifestFile> &files() const { return m_files; }
    qint64 totalSize() const;
    const QStringList &warnings() const { return m_warnings; }

private:
    static Status checkFiles(QList<ManifestFile> &files);

    QList<ManifestFile> m_files; // sorted by path
    QStringList m_warnings;
};

} // namespace ddl
