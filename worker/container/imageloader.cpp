#include "imageloader.h"

#include "core/sha256.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcImages, "ddl.worker.images")

namespace ddl::worker {

ImageLoader::ImageLoader(const QString &program, QObject *parent)
    : QObject(parent)
    , m_program(program)
{
}

// The podman processes are children and die with it; their callbacks never come.
ImageLoader::~ImageLoader()
{
    qDeleteAll(m_loads);
}

static Error badLayout(const QString &what)
{
    return Error::make(ErrorCode::InvalidImage,
                       u"the pushed image is not a usable OCI layout: %1; push it again with "
                       "ddlcli image push"_s.arg(what));
}

// A JSON object of the layout: index.json, or a blob named "sha256:<hex>".
static Result<QJsonObject> readJson(const QString &folder, const QString &pathOrDigest)
{
    QString path = pathOrDigest;
    if (pathOrDigest.startsWith("sha256:"_L1)) {
        const QString hex = pathOrDigest.mid(7);
        if (!isSha256Hex(hex))
            return badLayout(u"'%1' is not a SHA-256 digest"_s.arg(pathOrDigest.left(80)));
        path = u"blobs/sha256/"_s + hex;
    }
    QFile file(folder + u'/' + path);
    if (!file.open(QIODevice::ReadOnly))
        return badLayout(u"cannot read %1 (%2)"_s.arg(path, file.errorString()));
    if (file.size() > ImageLoader::MaxJsonBytes)
        return badLayout(u"%1 is over %2 bytes"_s.arg(path).arg(ImageLoader::MaxJsonBytes));
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll());
    if (!document.isObject())
        return badLayout(u"%1 is not a JSON object"_s.arg(path));
    return document.object();
}

Result<QString> ImageLoader::imageIdOf(const QString &folder)
{
    Result<QJsonObject> index = readJson(folder, u"index.json"_s);
    if (!index)
        return index.error();
    const QJsonArray manifests = index->value(u"manifests"_s).toArray();
    if (manifests.size() != 1)
        return badLayout(u"index.json lists %1 image manifests, not one"_s.arg(manifests.size()));
    Result<QJsonObject> manifest =
        readJson(folder, manifests.first().toObject().value(u"digest"_s).toString());
    if (!manifest)
        return manifest.error();
    const QString config = manifest->value(u"config"_s).toObject().value(u"digest"_s).toString();
    if (!config.startsWith("sha256:"_L1) || !isSha256Hex(config.mid(7)))
        return badLayout(u"its manifest names the config '%1'"_s.arg(config.left(80)));
    return config.mid(7);
}

qint64 ImageLoader::layoutBytes(const QString &folder)
{
    qint64 bytes = 0;
    QDirIterator blobs(folder + u"/blobs/sha256"_s, QDir::Files);
    while (blobs.hasNext()) {
        blobs.next();
        bytes += blobs.fileInfo().size();
    }
    return bytes;
}

void ImageLoader::load(
    const QString &folder, const QString &name, QObject *context, LogLine log, Callback done)
{
    Result<QString> imageId = imageIdOf(folder);
    if (!imageId) {
        done(imageId.error());
        return;
    }
    if (Load *running = m_loads.value(*imageId)) {
        running->waiters.append({context, std::move(log), std::move(done)});
        return;
    }
    auto *load = new Load{*imageId, folder, name, {{context, std::move(log), std::move(done)}}};
    m_loads.insert(*imageId, load);
    checkExists(load);
}

void ImageLoader::checkExists(Load *load)
{
    auto *exists = new QProcess(this);
    connect(exists,
            &QProcess::finished,
            this,
            [this, exists, load](int exitCode, QProcess::ExitStatus status) {
                exists->deleteLater();
                if (status == QProcess::NormalExit && exitCode == 0)
                    finish(load->imageId, Loaded{load->imageId, false, 0});
                else
                    runLoad(load);
            });
    // Only a process that never started emits no finished(); any other error is handled there.
    connect(exists, &QProcess::errorOccurred, this, [this, exists, load](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        exists->deleteLater();
        finish(load->imageId,
               Error::make(ErrorCode::ContainerUnavailable,
                           u"cannot run %1: %2"_s.arg(m_program, exists->errorString())));
    });
    QTimer::singleShot(ExistsTimeoutMs, exists, [exists] { exists->kill(); });
    exists->start(m_program, {u"image"_s, u"exists"_s, load->imageId});
}

void ImageLoader::runLoad(Load *load)
{
    const double mib = double(layoutBytes(load->folder)) / (1024 * 1024);
    for (const Waiter &waiter : std::as_const(load->waiters)) {
        if (waiter.context)
            waiter.log(u"loading image %1 (%2 MiB)"_s.arg(load->name).arg(mib, 0, 'f', 1));
    }
    qCInfo(lcImages).noquote() << "loading image" << load->name << "as" << load->imageId;
    auto *process = new QProcess(this);
    process->setProcessChannelMode(QProcess::MergedChannels);
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    connect(
        process,
        &QProcess::finished,
        this,
        [this, process, load, clock](int exitCode, QProcess::ExitStatus status) {
            process->deleteLater();
            const QString said = QString::fromLocal8Bit(process->readAll()).trimmed().right(800);
            if (status != QProcess::NormalExit || exitCode != 0) {
                finish(load->imageId,
                       Error::make(ErrorCode::ContainerUnavailable,
                                   u"podman load of image %1 failed: %2"_s.arg(load->name, said)));
                return;
            }
            finish(load->imageId, Loaded{load->imageId, true, double(clock->elapsed()) / 1000});
        });
    connect(
        process, &QProcess::errorOccurred, this, [this, process, load](QProcess::ProcessError e) {
            if (e != QProcess::FailedToStart)
                return;
            process->deleteLater();
            finish(load->imageId,
                   Error::make(ErrorCode::ContainerUnavailable,
                               u"cannot run %1: %2"_s.arg(m_program, process->errorString())));
        });
    // podman names an image loaded from a folder after the path it is given, and refuses upper
    // case: the folder's own name (m-<hex>), from beside it, is one it accepts.
    const QFileInfo folder(load->folder);
    process->setWorkingDirectory(folder.absolutePath());
    // A podman that waits forever (on a store another podman holds locked) ends the task's wait.
    QTimer::singleShot(LoadTimeoutMs, process, [process] { process->kill(); });
    process->start(m_program, {u"load"_s, u"--quiet"_s, u"--input"_s, folder.fileName()});
}

void ImageLoader::finish(const QString &imageId, const Result<Loaded> &result)
{
    Load *load = m_loads.take(imageId);
    if (!load)
        return;
    for (const Waiter &waiter : std::as_const(load->waiters)) {
        if (waiter.context)
            waiter.done(result);
    }
    delete load;
}

} // namespace ddl::worker
