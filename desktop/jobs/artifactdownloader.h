#pragma once

#include <QJsonArray>
#include <QObject>
#include <QPointer>

namespace ddl {
class ApiClient;
class RangeDownload;
}

namespace ddl::desktop {

// Downloads a job's output files one after the other into a folder, by ranges through
// RangeDownload: each is verified by its digest, and an interrupted one resumes from its .part.
class ArtifactDownloader : public QObject
{
    Q_OBJECT
public:
    ArtifactDownloader(ApiClient *client, const QString &jobUuid, QObject *parent = nullptr);

    // files: [{path, size, sha256}], as ArtifactModel::filesUnder gives them.
    void start(const QJsonArray &files, const QString &destination);
    void cancel();
    bool isRunning() const;
    QString destination() const { return m_destination; }

signals:
    void progress(qint64 done, qint64 total);
    void finished(bool ok, const QString &message);

private:
    void next();

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    QJsonArray m_files;
    QString m_destination;
    int m_index = 0;
    qint64 m_doneBytes = 0;
    qint64 m_totalBytes = 0;
    QPointer<RangeDownload> m_current;
};

} // namespace ddl::desktop
