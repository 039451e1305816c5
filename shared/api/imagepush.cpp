#include "imagepush.h"

#include "datasetupload.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStandardPaths>

using namespace Qt::Literals::StringLiterals;

namespace ddl {

ImagePush::ImagePush(ApiClient *client,
                     const QString &localImage,
                     const QString &name,
                     QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_localImage(localImage)
    , m_name(name)
{
    m_save.setProcessChannelMode(QProcess::MergedChannels);
}

ImagePush::~ImagePush()
{
    delete m_upload;
    if (m_save.state() != QProcess::NotRunning) {
        m_save.kill();
        m_save.waitForFinished(2000);
    }
}

QString ImagePush::defaultName(const QString &localImage)
{
    QString name = localImage.section(u'/', -1);
    name = name.section(u'@', 0, 0);
    return name.section(u':', 0, 0);
}

Status ImagePush::checkReference(const QString &localImage)
{
    static const QRegularExpression reference(
        QRegularExpression::anchoredPattern(u"[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,511}"_s));
    if (!reference.match(localImage).hasMatch()) {
        return Error::make(
            ErrorCode::Usage,
            QStringLiteral("'%1' is not an image reference: use letters, digits and . _ / : "
                           "@ + - only, as podman images shows them")
                .arg(localImage.left(100)));
    }
    return Ok{};
}

Result<QString> ImagePush::podman()
{
    const QString program = QStandardPaths::findExecutable(u"podman"_s);
    if (program.isEmpty()) {
        return Error::make(
            ErrorCode::NotFound,
            QStringLiteral("podman is not installed; an image is pushed from podman's store "
                           "with podman save (sudo apt install podman)"));
    }
    return program;
}

QStringList ImagePush::saveArguments(const QString &localImage, const QString &layout)
{
    return {u"save"_s, u"--format"_s, u"oci-dir"_s, u"--output"_s, layout, u"--"_s, localImage};
}

QStringList ImagePush::localImageNames(const QByteArray &podmanImagesJson)
{
    QStringList names;
    for (const QJsonValue &image : QJsonDocument::fromJson(podmanImagesJson).array()) {
        for (const QJsonValue &name : image.toObject().value("Names"_L1).toArray()) {
            if (checkReference(name.toString()))
                names << name.toString();
        }
    }
    names.sort();
    names.removeDuplicates();
    return names;
}

Error ImagePush::saveFailed(const QString &localImage, const QByteArray &output)
{
    return Error::make(ErrorCode::InvalidImage,
                       QStringLiteral("podman save %1 failed: %2; podman images "
                                      "lists the images you can push")
                           .arg(localImage, QString::fromLocal8Bit(output).trimmed().right(800)));
}

void ImagePush::start()
{
    if (Status checked = checkReference(m_localImage); !checked)
        return finish(checked);
    Result<QString> program = podman();
    if (!program)
        return finish(program.error());
    if (!m_scratch.isValid()) {
        return finish(Error::make(
            ErrorCode::IoError,
            u"cannot make a temporary folder for the image: %1"_s.arg(m_scratch.errorString())));
    }
    connect(&m_save, &QProcess::finished, this, &ImagePush::handleSaved);
    connect(&m_save, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            finish(Error::make(ErrorCode::NotFound,
                               u"podman did not start: %1"_s.arg(m_save.errorString())));
    });
    m_save.start(*program, saveArguments(m_localImage, m_scratch.filePath(u"layout"_s)));
    m_save.closeWriteChannel();
}

void ImagePush::cancel()
{
    if (m_upload)
        m_upload->cancel();
    else if (m_save.state() != QProcess::NotRunning)
        m_save.kill();
    finish(Error::make(ErrorCode::Aborted, u"the push of %1 was cancelled"_s.arg(m_localImage)));
}

void ImagePush::handleSaved()
{
    if (isFinished())
        return;
    if (m_save.exitStatus() != QProcess::NormalExit || m_save.exitCode() != 0) {
        return finish(saveFailed(m_localImage, m_save.readAll()));
    }
    const QString layout = m_scratch.filePath(u"layout"_s);
    qint64 bytes = 0;
    for (QDirIterator files(layout, QDir::Files, QDirIterator::Subdirectories); files.hasNext();)
        bytes += files.nextFileInfo().size();
    m_upload = new DatasetUpload(m_client, layout);
    m_upload->setName(m_name);
    m_upload->setCollection(DatasetUpload::Collection::Images);
    connect(m_upload, &DatasetUpload::finished, this, &ImagePush::handleUploaded);
    emit saved(bytes);
    m_upload->start();
}

void ImagePush::handleUploaded()
{
    if (isFinished())
        return;
    m_image = m_upload->dataset();
    finish(m_upload->result() ? Status(Ok{}) : Status(m_upload->result().error()));
}

void ImagePush::finish(const Status &status)
{
    if (isFinished())
        return;
    m_result = status;
    // Never from inside start(): whoever started it connects first.
    QMetaObject::invokeMethod(this, &ImagePush::finished, Qt::QueuedConnection);
}

} // namespace ddl
