// Images pushed to DDL (/v1/images, docs/images.md): an OCI layout uploaded as a dataset manifest
// of the user's blobs is named and listed per user, a manifest that is no OCI layout is refused,
// a job naming ddl://NAME records the layout for its worker (only one that runs podman), whose
// lease carries it and who may then read its layers, and another user's image is a 404.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "packaging/datasetmanifest.h"
#include "serverapitestcase.h"

#include <QDir>
#include <QFile>

using namespace ddl;
using namespace ddl::server;
using namespace Qt::StringLiterals;

class tst_ApiImages : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void layoutIsNamedPerUser();
    void manifestThatIsNoLayoutIsRefused_data();
    void manifestThatIsNoLayoutIsRefused();
    void jobInAPushedImageLeasesItsLayout();
    void workerThatAnnouncesPodmanLaterGetsTheJob();

private:
    // Writes files (path -> bytes) into a new folder, uploads each and the folder's dataset
    // manifest under token; returns the manifest's digest, empty on failure.
    QString uploadLayout(const QString &token, const QMap<QString, QByteArray> &files);
    // A small OCI layout: a layer, a config, the image manifest naming them, index.json naming
    // it. *manifestDigest and *layerDigest are set to the digests ("sha256:..." and hex).
    QMap<QString, QByteArray> ociLayout(const QByteArray &seed,
                                        QString *manifestDigest = nullptr,
                                        QString *layerSha = nullptr);
    int m_folders = 0;
};

QMap<QString, QByteArray>
tst_ApiImages::ociLayout(const QByteArray &seed, QString *manifestDigest, QString *layerSha)
{
    const QByteArray layer = someBytes("layer" + seed, 4096);
    const QByteArray config = R"({"architecture":"amd64","os":"linux","seed":")" + seed + "\"}";
    const QByteArray manifest =
        QJsonDocument(
            QJsonObject{
                {u"schemaVersion"_s, 2},
                {u"config"_s, QJsonObject{{u"digest"_s, QString(u"sha256:"_s + sha256Of(config))}}},
                {u"layers"_s,
                 QJsonArray{QJsonObject{{u"digest"_s, QString(u"sha256:"_s + sha256Of(layer))}}}}})
            .toJson(QJsonDocument::Compact);
    const QByteArray index =
        QJsonDocument(
            QJsonObject{{u"schemaVersion"_s, 2},
                        {u"manifests"_s,
                         QJsonArray{QJsonObject{
                             {u"digest"_s, QString(u"sha256:"_s + sha256Of(manifest))}}}}})
            .toJson(QJsonDocument::Compact);
    if (manifestDigest)
        *manifestDigest = u"sha256:"_s + sha256Of(manifest);
    if (layerSha)
        *layerSha = sha256Of(layer);
    return {{u"oci-layout"_s, R"({"imageLayoutVersion": "1.0.0"})"},
            {u"index.json"_s, index},
            {u"blobs/sha256/"_s + sha256Of(layer), layer},
            {u"blobs/sha256/"_s + sha256Of(config), config},
            {u"blobs/sha256/"_s + sha256Of(manifest), manifest}};
}

QString tst_ApiImages::uploadLayout(const QString &token, const QMap<QString, QByteArray> &files)
{
    const QString folder = m_dir.filePath(u"layout-%1"_s.arg(++m_folders));
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const QString path = folder + u'/' + it.key();
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(it.value()) != it.value().size())
            return {};
        file.close();
        if (uploadBlob(token, it.value()).isEmpty())
            return {};
    }
    const Result<DatasetManifest> manifest = DatasetManifest::scan(folder);
    if (!manifest)
        return {};
    return uploadBlob(token, manifest->toJson());
}

void tst_ApiImages::layoutIsNamedPerUser()
{
    const QString alice = newUser(u"images-alice@example.com"_s);
    const QString bob = newUser(u"images-bob@example.com"_s);
    QString digest;
    const QString layout = uploadLayout(alice, ociLayout("named", &digest));
    QVERIFY(!layout.isEmpty());

    const Answer created =
        post(u"/v1/images"_s, alice, {{u"name"_s, u"tiny"_s}, {u"manifest_sha256"_s, layout}});
    VERIFY_STATUS(created, 201);
    QCOMPARE(created.json().value("digest"_L1).toString(), digest);
    QCOMPARE(created.json().value("manifest_sha256"_L1).toString(), layout);
    const QJsonArray mine = get(u"/v1/images"_s, alice).json().value("images"_L1).toArray();
    QCOMPARE(mine.size(), 1);
    QCOMPARE(mine.first().toObject().value("name"_L1).toString(), u"tiny"_s);

    // Bob sees none of it, cannot remove it, and cannot name Alice's blobs as his image.
    QCOMPARE(get(u"/v1/images"_s, bob).json().value("images"_L1).toArray().size(), 0);
    VERIFY_ERROR(send("DELETE", u"/v1/images/tiny"_s, bob), 404, "not_found");
    VERIFY_ERROR(
        post(u"/v1/images"_s, bob, {{u"name"_s, u"tiny"_s}, {u"manifest_sha256"_s, layout}}),
        400,
        "bad_request");
    VERIFY_ERROR(
        post(u"/v1/images"_s, alice, {{u"name"_s, u"../up"_s}, {u"manifest_sha256"_s, layout}}),
        400,
        "bad_request");

    VERIFY_STATUS(send("DELETE", u"/v1/images/tiny"_s, alice), 200);
    QCOMPARE(get(u"/v1/images"_s, alice).json().value("images"_L1).toArray().size(), 0);
}

void tst_ApiImages::manifestThatIsNoLayoutIsRefused_data()
{
    QTest::addColumn<QString>("change");
    QTest::newRow("no index.json") << u"drop index.json"_s;
    QTest::newRow("no oci-layout") << u"drop oci-layout"_s;
    QTest::newRow("index names a manifest the layout lacks") << u"drop manifest"_s;
    QTest::newRow("index is not JSON") << u"garble index.json"_s;
}

void tst_ApiImages::manifestThatIsNoLayoutIsRefused()
{
    QFETCH(QString, change);
    const QString alice =
        newUser(u"layout-%1@example.com"_s.arg(QString::fromLatin1(QTest::currentDataTag()))
                    .replace(u' ', u'-'));
    QString digest;
    QMap<QString, QByteArray> files = ociLayout(QTest::currentDataTag(), &digest);
    if (change == u"drop index.json"_s)
        files.remove(u"index.json"_s);
    else if (change == u"drop oci-layout"_s)
        files.remove(u"oci-layout"_s);
    else if (change == u"drop manifest"_s)
        files.remove(u"blobs/sha256/"_s + digest.mid(7));
    else
        files.insert(u"index.json"_s, "not json");
    const QString layout = uploadLayout(alice, files);
    QVERIFY(!layout.isEmpty());
    const Answer refused =
        post(u"/v1/images"_s, alice, {{u"name"_s, u"bad"_s}, {u"manifest_sha256"_s, layout}});
    VERIFY_ERROR(refused, 400, "bad_manifest");
    QVERIFY2(refused.error().value("message"_L1).toString().contains(u"not an OCI image layout"_s),
             qPrintable(refused.describe()));
}

void tst_ApiImages::jobInAPushedImageLeasesItsLayout()
{
    const QString alice = newUser(u"job-image-alice@example.com"_s);
    const QString bob = newUser(u"job-image-bob@example.com"_s);
    QString layer;
    const QString layout = uploadLayout(alice, ociLayout("job", nullptr, &layer));
    QVERIFY(!layout.isEmpty());
    VERIFY_STATUS(
        post(u"/v1/images"_s, alice, {{u"name"_s, u"tiny"_s}, {u"manifest_sha256"_s, layout}}),
        201);
    const QByteArray package = someBytes("image-job-package", 512);
    const QString packageSha = uploadBlob(alice, package);
    QJsonObject spec = wireSpec(u"in-image"_s);
    spec.insert(u"image"_s, u"ddl://tiny"_s);

    // Bob has no image of that name.
    QJsonObject bobs = submission(spec, uploadBlob(bob, package));
    bobs.insert(u"allow_unschedulable"_s, true);
    const Answer foreign = post(u"/v1/jobs"_s, bob, bobs);
    VERIFY_ERROR(foreign, 404, "not_found");
    QCOMPARE(foreign.error().value("field"_L1).toString(), u"image"_s);

    // Only a worker that runs podman gets it; it may then read the layout's blobs.
    const Answer enrolled = post(u"/v1/workers/enroll"_s,
                                 {},
                                 {{u"enroll_token"_s, m_enrollToken},
                                  {u"name"_s, u"podman-worker"_s},
                                  {u"hostname"_s, u"podman.local"_s},
                                  {u"cpus"_s, 8},
                                  {u"memory_mb"_s, 16384},
                                  {u"gpus"_s, 0},
                                  {u"slots"_s, 2},
                                  {u"runtimes"_s, QJsonArray{u"bubblewrap"_s, u"podman"_s}}});
    VERIFY_STATUS(enrolled, 201);
    const Worker podman{enrolled.json().value("worker_id"_L1).toInteger(),
                        enrolled.json().value("worker_token"_L1).toString()};
    m_workersToRetire.append(podman);
    VERIFY_ERROR(get(u"/v1/workers/blobs/"_s + layer, podman.token), 404, "not_found");
    const QString uuid = submitJob(alice, spec, packageSha);
    QVERIFY(!uuid.isEmpty());
    QCOMPARE(lease(m_someWorker).size(), 0);
    const QJsonArray leased = lease(podman);
    QCOMPARE(leased.size(), 1);
    const QJsonObject task = leased.first().toObject();
    QCOMPARE(task.value("image"_L1).toString(), u"ddl://tiny"_s);
    QCOMPARE(task.value("image_manifest"_L1).toString(), layout);
    const Answer layerBytes = get(u"/v1/workers/blobs/"_s + layer, podman.token);
    VERIFY_STATUS(layerBytes, 200);
    QCOMPARE(sha256Of(layerBytes.body), layer);
    VERIFY_STATUS(get(u"/v1/workers/blobs/"_s + layout, podman.token), 200);

    // The worker tells how the image's load goes; the job's events show it, and only the
    // task's own worker may tell, one printable line at a time.
    const qint64 taskId = task.value("task_id"_L1).toInteger();
    const QString events = u"/v1/workers/tasks/%1/events"_s.arg(taskId);
    VERIFY_STATUS(
        post(events, podman.token, {{u"message"_s, u"loading image ddl://tiny (0.1 MiB)"_s}}), 200);
    VERIFY_ERROR(
        post(events, m_someWorker.token, {{u"message"_s, u"not mine"_s}}), 409, "conflict");
    VERIFY_ERROR(post(events, podman.token, {{u"message"_s, u"two\nlines"_s}}), 400, "bad_request");
    VERIFY_ERROR(
        post(events, podman.token, {{u"message"_s, QString(501, u'x')}}), 400, "bad_request");
    const QJsonArray told = job(alice, uuid).value("events"_L1).toArray();
    QCOMPARE(told.size(), 1);
    QCOMPARE(told.first().toObject().value("message"_L1).toString(),
             u"loading image ddl://tiny (0.1 MiB)"_s);
    QCOMPARE(told.first().toObject().value("task_id"_L1).toInteger(), taskId);
}

void tst_ApiImages::workerThatAnnouncesPodmanLaterGetsTheJob()
{
    const QString alice = newUser(u"later-podman@example.com"_s);
    const QString layout = uploadLayout(alice, ociLayout("later"));
    QVERIFY(!layout.isEmpty());
    VERIFY_STATUS(
        post(u"/v1/images"_s, alice, {{u"name"_s, u"later"_s}, {u"manifest_sha256"_s, layout}}),
        201);
    // Enrolled without runtimes (as a worker from before they were announced).
    const Worker worker = enrollWorker(u"later-podman"_s);
    QJsonObject spec = wireSpec(u"later-image"_s);
    spec.insert(u"image"_s, u"ddl://later"_s);
    QJsonObject submitted = submission(spec, uploadBlob(alice, someBytes("later-package", 256)));
    submitted.insert(u"allow_unschedulable"_s, true);
    const Answer created = post(u"/v1/jobs"_s, alice, submitted);
    VERIFY_STATUS(created, 201);
    m_jobsToCancel.append({alice, created.json().value("uuid"_L1).toString()});
    QCOMPARE(lease(worker).size(), 0);

    // A malformed announcement is refused, naming the field; a good one makes it a podman worker.
    const Answer bad = post(u"/v1/workers/heartbeat"_s,
                            worker.token,
                            {{u"running"_s, QJsonArray{}}, {u"runtimes"_s, u"podman"_s}});
    VERIFY_ERROR(bad, 400, "bad_request");
    QCOMPARE(bad.error().value("field"_L1).toString(), u"runtimes"_s);
    VERIFY_STATUS(post(u"/v1/workers/heartbeat"_s,
                       worker.token,
                       {{u"running"_s, QJsonArray{}},
                        {u"runtimes"_s, QJsonArray{u"bubblewrap"_s, u"podman"_s}}}),
                  200);
    const QJsonArray leased = lease(worker);
    QCOMPARE(leased.size(), 1);
    QCOMPARE(leased.first().toObject().value("image"_L1).toString(), u"ddl://later"_s);
    const QJsonArray workers = get(u"/v1/workers"_s, alice).json().value("workers"_L1).toArray();
    const auto it = std::find_if(workers.begin(), workers.end(), [](const QJsonValue &entry) {
        return entry.toObject().value("name"_L1).toString() == u"later-podman"_s;
    });
    QVERIFY(it != workers.end());
    QCOMPARE(it->toObject().value("runtimes"_L1).toArray(),
             (QJsonArray{u"bubblewrap"_s, u"podman"_s}));
}

QTEST_GUILESS_MAIN(tst_ApiImages)
#include "tst_api_images.moc"
