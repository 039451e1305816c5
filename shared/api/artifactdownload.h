#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include <QJsonArray>
#include <QObject>
#include <QPointer>
#include <optional>

namespace ddl {

class RangeDownload;

// One of a job's output files, as GET /v1/jobs/<uuid>/artifacts lists it.
struct ArtifactFile
{
    QString path; // relative and '/'-separated: checked by ArtifactDownload::parseList
    qint64 size = 0;
    QString sha256;
    bool downloaded = false; // after the download: false when the file was there already
};

// Downloads files of a job's output into a folder, one after the other, by ranges
// (RangeDownload): a file already there with its digest is kept, each one is verified by its
// digest, an interrupted one resumes from its .part (and starts again once when that .part was
// not its own), and nothing is written outside the folder, not even through a link.
class ArtifactDownload : public QObject
{
    Q_OBJECT
public:
    ArtifactDownload(ApiClient *client, const QString &jobUuid, QObject *parent = nullptr);
    ~ArtifactDownload() override;

    // The server's list ([{path, size, sha256}]), every path checked before anything is written.
    static Result<QList<ArtifactFile>> parseList(const QJsonArray &files);
    // path itself when it is relative and stays inside a folder; else an "unsafe_path" error.
    static Result<QString> safeRelativePath(const QString &path);

    void start(const QList<ArtifactFile> &files, const QString &destination);
    void cancel();
    bool isRunning() const { return !m_current.isNull(); }
    bool isFinished() const { return m_result.has_value(); }
    // The files with where they are, once all are there.
    const Result<QList<ArtifactFile>> &result() const { return *m_result; }
    const Result<QList<ArtifactFile>> &waitForFinished();
    QString destination() const { return m_destination; }

signals:
    void fileProgress(const QString &path, const ddl::TransferProgress &progress);
    // Bytes of all files, those found already there included.
    void progress(qint64 done, qint64 total);
    void fileDone(const ddl::ArtifactFile &file);
    void finished();

private:
    void next(bool retry = false);
    void finish(Result<QList<ArtifactFile>> result);

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    QList<ArtifactFile> m_files;
    QString m_destination;
    qsizetype m_index = 0;
    qint64 m_doneBytes = 0;
    qint64 m_totalBytes = 0;
    QPointer<RangeDownload> m_current;
    std::optional<Result<QList<ArtifactFile>>> m_result;
};

} // namespace ddl
