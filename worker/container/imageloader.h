#pragma once

#include "core/result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>

namespace ddl::worker {

// Puts images pushed to DDL (jobs name them ddl://NAME) into podman, once per image: the task's
// blob cache lays the image's OCI layout out (it is a dataset manifest), and this reads which
// image it holds (index.json -> the image manifest -> its config, whose digest is podman's image
// ID), asks podman whether it has that ID, and `podman load`s the layout only when it does not.
// Tasks run the image by that ID, which the layers and config pin. Loads of the same image for
// tasks that start together are made once.
class ImageLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 MaxJsonBytes = 1 << 20;
    static constexpr int ExistsTimeoutMs = 120'000;
    static constexpr int LoadTimeoutMs = 30 * 60'000;

    struct Loaded
    {
        QString imageId;        // 64 hex digits: what `podman run` is given
        bool loadedNow = false; // false: podman had it
        double seconds = 0;     // how long the load took
    };
    using Callback = std::function<void(const Result<Loaded> &)>;
    using LogLine = std::function<void(const QString &)>;

    // program: podman.
    explicit ImageLoader(const QString &program, QObject *parent = nullptr);
    ~ImageLoader() override;

    // The image ID of the OCI layout in folder; the error says what is wrong with the layout.
    static Result<QString> imageIdOf(const QString &folder);
    // The bytes of the layout's blobs: what a load reads.
    static qint64 layoutBytes(const QString &folder);

    // done(the image's ID) from the event loop once podman has the image; dropped when context
    // is gone. log gets "loading image NAME (N MiB)" when it must be loaded.
    void
    load(const QString &folder, const QString &name, QObject *context, LogLine log, Callback done);

private:
    struct Waiter
    {
        QPointer<QObject> context;
        LogLine log;
        Callback done;
    };
    struct Load
    {
        QString imageId;
        QString folder;
        QString name;
        QList<Waiter> waiters;
    };

    void checkExists(Load *load);
    void runLoad(Load *load);
    void finish(const QString &imageId, const Result<Loaded> &result);

    QString m_program;
    QHash<QString, Load *> m_loads; // by image ID, while podman works on it
};

} // namespace ddl::worker
