#pragma once

#include "apiclient.h"
#include "core/result.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTemporaryDir>
#include <optional>

namespace ddl {

class DatasetUpload;

// Puts a local podman image on the server as ddl://NAME (the desktop's Images page; ddlcli image
// push uses the same steps): `podman save --format oci-dir` into a temporary folder, run as a
// QProcess so that a GUI stays responsive, then the layout sent as a DatasetUpload of
// Collection::Images, so that only the layers the server does not have travel.
class ImagePush : public QObject
{
    Q_OBJECT
public:
    ImagePush(ApiClient *client,
              const QString &localImage,
              const QString &name,
              QObject *parent = nullptr);
    ~ImagePush() override;

    // The server's name of a local image: without registry, tag or digest ("ddl-test").
    static QString defaultName(const QString &localImage);
    // Refuses what podman could read as one of its options, saying what an image reference is.
    static Status checkReference(const QString &localImage);
    // podman on PATH; an error saying how to install it when there is none.
    static Result<QString> podman();
    static QStringList saveArguments(const QString &localImage, const QString &layout);
    // What a failed podman save said, with what to do.
    static Error saveFailed(const QString &localImage, const QByteArray &output);
    // The names `podman images --format json` printed ("localhost/ddl-test:1"), sorted.
    static QStringList localImageNames(const QByteArray &podmanImagesJson);

    QString localImage() const { return m_localImage; }
    QString name() const { return m_name; }
    void start();
    void cancel();
    bool isFinished() const { return m_result.has_value(); }
    const Status &result() const { return *m_result; }
    // Sending the layout, once podman saved it (its progress signals); null before and after.
    DatasetUpload *upload() const { return m_upload; }
    // The server's answer naming the image (name, digest, total_size).
    QJsonObject image() const { return m_image; }

signals:
    // podman saved the layout; upload() sends it now.
    void saved(qint64 bytes);
    void finished();

private:
    void handleSaved();
    void handleUploaded();
    void finish(const Status &status);

    QPointer<ApiClient> m_client;
    QString m_localImage;
    QString m_name;
    QTemporaryDir m_scratch;
    QProcess m_save;
    DatasetUpload *m_upload = nullptr;
    QJsonObject m_image;
    std::optional<Status> m_result;
};

} // namespace ddl
