#include "jobspec/jobspec.h"
#include "jobspec/jobspecparser.h"
#include "jobspec/jobspecvalidator.h"
#include "jobspec/specerror.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl;
using namespace Qt::StringLiterals;

namespace {

const char PaiKnown[] = "jobName, image, dataDir, outputDir, codeDir, taskRoles, "
                        "killAllOnCompletedTaskNumber, retryCount, jobEnvs, authFile, "
                        "virtualCluster, gpuType, minWorkerTrust, extras";
const char WireKnown[] = "kind, jobName, image, dataDir, outputDir, codeDir, taskRoles, "
                         "killAllOnCompletedTaskNumber, retryCount, jobEnvs, authFile, "
                         "virtualCluster, gpuType, minWorkerTrust, extras";
const char RoleKnown[] = "name, taskNumber, cpuNumber, memoryMB, gpuNumber, command, shmMB, "
                         "portList, minFailedTaskCount, minSucceededTaskCount";
const char PortKnown[] = "label, beginAt, portNumber";
const char JobDataKnown[] = "job_name, dataset, worker_required, gpu_per_worker, cpu_per_worker, "
                            "memory_mb_per_worker, retry_count, image, min_worker_trust";

// A valid OpenPAI job with one task role; patch() changes it for one table row.
const char BasePai[] = R"({"jobName": "mnist-1", "image": "pytorch/pytorch:2.0",
    "taskRoles": [{"name": "trainer", "taskNumber": 2, "cpuNumber": 4, "memoryMB": 8192,
                   "gpuNumber": 1, "command": "python train.py"}]})";

QJsonObject parseObject(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad JSON in the test itself: %s", qPrintable(error.errorString()));
    return document.object();
}

// The base job with the keys of patchJson set at the top level ("role" sets keys of
// taskRoles[0]); a null value removes the key.
QByteArray patched(const char *patchJson, const char *base = BasePai)
{
    const auto apply = [](QJsonObject target, const QJsonObject &patch) {
        for (auto it = patch.begin(); it != patch.end(); ++it) {
            if (it.value().isNull())
                target.remove(it.key());
            else
                target.insert(it.key(), it.value());
        }
        return target;
    };
    QJsonObject object = parseObject(base);
    QJsonObject patch = parseObject(patchJson);
    if (patch.contains(QLatin1String("role"))) {
        QJsonArray roles = object.value(QLatin1String("taskRoles")).toArray();
        roles[0] = apply(roles.at(0).toObject(), patch.take(QLatin1String("role")).toObject());
        object.insert(QStringLiteral("taskRoles"), roles);
    }
    return QJsonDocument(apply(object, patch)).toJson(QJsonDocument::Compact);
}

QStringList lines(const char *text)
{
    return QString::fromUtf8(text).split(u'\n', Qt::SkipEmptyParts);
}

QStringList messages(const QList<SpecError> &errors)
{
    QStringList result;
    for (const SpecError &error : errors)
        result.append(error.toString());
    return result;
}

QString unknown(const char *field, const char *known)
{
    return QString::fromUtf8(field) + QStringLiteral(": unknown field; known fields are: ") +
           QString::fromUtf8(known);
}

// A task.yaml whose job_data holds the given lines (indented here).
QByteArray taskYaml(const char *jobDataLines)
{
    QByteArray yaml = "job_data:\n";
    for (const QByteArray &line : QByteArray(jobDataLines).split('\n')) {
        if (!line.isEmpty())
            yaml += "  " + line + '\n';
    }
    return yaml;
}

const char BaseJobData[] = "dataset:\n  dataset_location: ./data\nworker_required: 2\n";

} // namespace

class tst_JobSpec : public QObject
{
    Q_OBJECT

private slots:
    void paiJsonValid_data();
    void paiJsonValid();
    void paiJsonInvalid_data();
    void paiJsonInvalid();
    void taskYamlValid_data();
    void taskYamlValid();
    void taskYamlInvalid_data();
    void taskYamlInvalid();
    void wireValid_data();
    void wireValid();
    void wireInvalid_data();
    void wireInvalid();
    void wireRoundTrip_data();
    void wireRoundTrip();
    void validator_data();
    void validator();
    void validatorSkipsKnownBadFields();
    void names_data();
    void names();
    void totals();
    void resultError();
    void specErrorJson();
    void parseFile_data();
    void parseFile();
    void parseFileUnreadable();
    void schemaMatchesWireForm();
    void comments_data();
    void comments();
    void openPaiConfigs_data();
    void openPaiConfigs();
    void openPaiFieldsInvalid_data();
    void openPaiFieldsInvalid();
    void protocolV2Invalid_data();
    void protocolV2Invalid();
    void noEffectNotes();
    void formatByContent_data();
    void formatByContent();
    void taskYamlPointsToJobConfig();
};

// ---- OpenPAI job JSON -------------------------------------------------------------------------

void tst_JobSpec::paiJsonValid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QByteArray>("wire");

    QTest::newRow("one role") << QByteArray(BasePai)
                              << QByteArray(R"({"kind": "openpai", "jobName": "mnist-1",
        "image": "pytorch/pytorch:2.0", "killAllOnCompletedTaskNumber": 0, "retryCount": 0,
        "taskRoles": [{"name": "trainer", "taskNumber": 2, "cpuNumber": 4, "memoryMB": 8192,
                       "gpuNumber": 1, "command": "python train.py"}]})");
    QTest::newRow("all fields") << QByteArray(R"({"jobName": "a.b_c~d-1", "image": "img",
        "dataDir": "/d", "outputDir": "/o", "codeDir": "/c", "killAllOnCompletedTaskNumber": 3,
        "retryCount": 2, "taskRoles": [
          {"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
           "command": "run ps"},
          {"name": "work_er-2", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 200,
           "gpuNumber": 4, "command": "run worker"}]})")
                                << QByteArray(R"({"kind": "openpai", "jobName": "a.b_c~d-1",
        "image": "img", "dataDir": "/d", "outputDir": "/o", "codeDir": "/c",
        "killAllOnCompletedTaskNumber": 3, "retryCount": 2, "taskRoles": [
          {"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
           "command": "run ps"},
          {"name": "work_er-2", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 200,
           "gpuNumber": 4, "command": "run worker"}]})");
    QTest::newRow("integral double accepted")
        << patched(R"({"role": {"taskNumber": 2.0}})")
        << patched(R"({"kind": "openpai", "killAllOnCompletedTaskNumber": 0, "retryCount": 0})");
    QTest::newRow("killAll equal to total tasks")
        << patched(R"({"killAllOnCompletedTaskNumber": 2})")
        << patched(R"({"kind": "openpai", "killAllOnCompletedTaskNumber": 2, "retryCount": 0})");
    // Kept on the wire for the scheduler (docs/trust.md); 0, the default, is left out.
    QTest::newRow("minWorkerTrust")
        << patched(R"({"minWorkerTrust": 60})")
        << patched(R"({"kind": "openpai", "killAllOnCompletedTaskNumber": 0, "retryCount": 0,
                      "minWorkerTrust": 60})");
}

void tst_JobSpec::paiJsonValid()
{
    QFETCH(QByteArray, json);
    QFETCH(QByteArray, wire);

    const SpecParseResult result = JobSpecParser::parsePaiJsonDetailed(json);
    QCOMPARE(messages(result.errors), QStringList());
    QVERIFY(result.ok());
    QCOMPARE(result.spec->kind, JobSpec::Kind::OpenPai);
    QCOMPARE(result.spec->toJson(), parseObject(wire));

    const Result<JobSpec> plain = JobSpecParser::parsePaiJson(json);
    QVERIFY(plain.ok());
    QCOMPARE(*plain, *result.spec);
}

void tst_JobSpec::paiJsonInvalid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("errors");

    // Presence.
    QTest::newRow("jobName missing")
        << patched(R"({"jobName": null})") << lines("jobName: is required");
    QTest::newRow("image missing") << patched(R"({"image": null})") << lines("image: is required");
    QTest::newRow("taskRoles missing")
        << patched(R"({"taskRoles": null})") << lines("taskRoles: is required");
    QTest::newRow("role fields missing") << patched(R"({"taskRoles": [{}]})")
                                         << lines("taskRoles[0].name: is required\n"
                                                  "taskRoles[0].taskNumber: is required\n"
                                                  "taskRoles[0].cpuNumber: is required\n"
                                                  "taskRoles[0].memoryMB: is required\n"
                                                  "taskRoles[0].gpuNumber: is required\n"
                                                  "taskRoles[0].command: is required");

    // Rules.
    QTest::newRow("jobName empty")
        << patched(R"({"jobName": ""})") << lines("jobName: must not be empty");
    QTest::newRow("jobName with a space")
        << patched(R"({"jobName": "my job"})")
        << lines(R"(jobName: must match [A-Za-z0-9._~-]+, got "my job")");
    QTest::newRow("jobName with a slash")
        << patched(R"({"jobName": "a/b"})")
        << lines(R"(jobName: must match [A-Za-z0-9._~-]+, got "a/b")");
    QTest::newRow("image empty") << patched(R"({"image": ""})")
                                 << lines("image: must not be empty");
    QTest::newRow("taskRoles empty") << patched(R"({"taskRoles": []})")
                                     << lines("taskRoles: must contain at least one task role");
    QTest::newRow("taskNumber 0") << patched(R"({"role": {"taskNumber": 0}})")
                                  << lines("taskRoles[0].taskNumber: must be >= 1, got 0");
    QTest::newRow("cpuNumber 0") << patched(R"({"role": {"cpuNumber": 0}})")
                                 << lines("taskRoles[0].cpuNumber: must be >= 1, got 0");
    QTest::newRow("memoryMB 99") << patched(R"({"role": {"memoryMB": 99}})")
                                 << lines("taskRoles[0].memoryMB: must be >= 100, got 99");
    QTest::newRow("gpuNumber -1") << patched(R"({"role": {"gpuNumber": -1}})")
                                  << lines("taskRoles[0].gpuNumber: must be >= 0, got -1");
    QTest::newRow("command empty") << patched(R"({"role": {"command": ""}})")
                                   << lines("taskRoles[0].command: must not be empty");
    QTest::newRow("role name empty")
        << patched(R"({"role": {"name": ""}})") << lines("taskRoles[0].name: must not be empty");
    QTest::newRow("role name with a dot")
        << patched(R"({"role": {"name": "a.b"}})")
        << lines(R"(taskRoles[0].name: must match [A-Za-z0-9_-]+, got "a.b")");
    QTest::newRow("role names not unique")
        << QByteArray(R"({"jobName": "j", "image": "i", "taskRoles": [
            {"name": "w", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
             "command": "c"},
            {"name": "x", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
             "command": "c"},
            {"name": "w", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
             "command": "c"}]})")
        << lines(
               R"(taskRoles[2].name: duplicate task role name "w", already used by taskRoles[0])");
    QTest::newRow("retryCount -1")
        << patched(R"({"retryCount": -1})") << lines("retryCount: must be >= 0, got -1");
    QTest::newRow("killAll -1") << patched(R"({"killAllOnCompletedTaskNumber": -1})")
                                << lines("killAllOnCompletedTaskNumber: must be >= 0, got -1");
    QTest::newRow("killAll above total tasks")
        << patched(R"({"killAllOnCompletedTaskNumber": 3})")
        << lines("killAllOnCompletedTaskNumber: must be <= 2 (the total number of tasks), got 3");

    // Types.
    QTest::newRow("taskNumber string")
        << patched(R"({"role": {"taskNumber": "2"}})")
        << lines("taskRoles[0].taskNumber: must be an integer, got string");
    QTest::newRow("gpuNumber fraction")
        << patched(R"({"role": {"gpuNumber": 1.5}})")
        << lines("taskRoles[0].gpuNumber: must be an integer, got 1.5");
    QTest::newRow("memoryMB too large")
        << patched(R"({"role": {"memoryMB": 10000000000}})")
        << lines("taskRoles[0].memoryMB: must be an integer between -2147483648 and "
                 "2147483647, got 10000000000");
    QTest::newRow("cpuNumber boolean")
        << patched(R"({"role": {"cpuNumber": true}})")
        << lines("taskRoles[0].cpuNumber: must be an integer, got boolean");
    QTest::newRow("jobName number")
        << patched(R"({"jobName": 5})") << lines("jobName: must be a string, got number");
    QTest::newRow("image null") << QByteArray(R"({"jobName": "j", "image": null, "taskRoles": []})")
                                << lines("image: must be a string, got null\n"
                                         "taskRoles: must contain at least one task role");
    QTest::newRow("dataDir array")
        << patched(R"({"dataDir": ["/d"]})") << lines("dataDir: must be a string, got array");
    QTest::newRow("taskRoles object") << patched(R"({"taskRoles": {"name": "w"}})")
                                      << lines("taskRoles: must be an array, got object");
    QTest::newRow("task role not an object")
        << patched(R"({"taskRoles": ["worker"]})")
        << lines("taskRoles[0]: must be an object, got string");
    QTest::newRow("retryCount string")
        << patched(R"({"retryCount": "1"})") << lines("retryCount: must be an integer, got string");
    QTest::newRow("bad taskNumber does not make killAll fail")
        << patched(R"({"killAllOnCompletedTaskNumber": 2, "role": {"taskNumber": "x"}})")
        << lines("taskRoles[0].taskNumber: must be an integer, got string");

    // Unknown fields, at every level.
    QTest::newRow("unknown top-level field")
        << patched(R"({"jobname": "x"})") << QStringList{unknown("jobname", PaiKnown)};
    QTest::newRow("kind is not an OpenPAI field")
        << patched(R"({"kind": "openpai"})") << QStringList{unknown("kind", PaiKnown)};
    QTest::newRow("unknown role field") << patched(R"({"role": {"gpus": 1}})")
                                        << QStringList{unknown("taskRoles[0].gpus", RoleKnown)};

    // DDL's minWorkerTrust: a trust score, 0 to 100.
    QTest::newRow("minWorkerTrust above 100")
        << patched(R"({"minWorkerTrust": 101})")
        << lines("minWorkerTrust: must be from 0 to 100 (a worker's trust score; see "
                 "docs/trust.md), got 101");
    QTest::newRow("minWorkerTrust negative")
        << patched(R"({"minWorkerTrust": -1})")
        << lines("minWorkerTrust: must be from 0 to 100 (a worker's trust score; see "
                 "docs/trust.md), got -1");
    QTest::newRow("minWorkerTrust not a number")
        << patched(R"({"minWorkerTrust": "high"})")
        << lines("minWorkerTrust: must be an integer, got string");

    // All errors together, each with its exact path.
    QTest::newRow("many errors")
        << QByteArray(R"({"jobName": "bad name", "image": "",
        "retryCount": -2, "extra": 1, "taskRoles": [
          {"name": "ok", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
           "command": "c"},
          {"name": "second", "taskNumber": 0, "cpuNumber": "4", "memoryMB": 100,
           "gpuNumber": -1, "command": "c", "shmMB": 64, "storageGB": 5},
          {"taskNumber": 1, "cpuNumber": 1, "memoryMB": 50, "gpuNumber": 0, "command": ""}]})")
        << QStringList{
               QStringLiteral("taskRoles[1].cpuNumber: must be an integer, got string"),
               unknown("taskRoles[1].storageGB", RoleKnown),
               QStringLiteral("taskRoles[2].name: is required"),
               unknown("extra", PaiKnown),
               QStringLiteral(R"(jobName: must match [A-Za-z0-9._~-]+, got "bad name")"),
               QStringLiteral("image: must not be empty"),
               QStringLiteral("taskRoles[1].taskNumber: must be >= 1, got 0"),
               QStringLiteral("taskRoles[1].gpuNumber: must be >= 0, got -1"),
               QStringLiteral("taskRoles[2].memoryMB: must be >= 100, got 50"),
               QStringLiteral("taskRoles[2].command: must not be empty"),
               QStringLiteral("retryCount: must be >= 0, got -2"),
           };

    // Syntax.
    // Qt reports a missing comma as an unterminated object, just inside the next key.
    QTest::newRow("missing comma")
        << QByteArray("{\n  \"jobName\": \"x\",\n  \"image\": \"y\"\n  \"taskRoles\": []\n}\n")
        << lines("syntax error at line 4, column 4: unterminated object");
    QTest::newRow("unterminated") << QByteArray("{\"jobName\": \"x")
                                  << lines(
                                         "syntax error at line 1, column 15: unterminated string");
    QTest::newRow("empty") << QByteArray()
                           << lines("syntax error at line 1, column 1: illegal value");
    QTest::newRow("array document")
        << QByteArray("[]") << lines("the document must be a JSON object, got array");
}

void tst_JobSpec::paiJsonInvalid()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, errors);

    const SpecParseResult result = JobSpecParser::parsePaiJsonDetailed(json);
    QCOMPARE(messages(result.errors), errors);
    QVERIFY(!result.ok());
    QVERIFY(!result.spec.has_value());

    const Result<JobSpec> plain = JobSpecParser::parsePaiJson(json);
    QVERIFY(!plain.ok());
    QCOMPARE(plain.error().code, QStringLiteral("invalid_spec"));
    QCOMPARE(plain.error().message, errors.join(u'\n'));
}

// ---- DDL task.yaml ----------------------------------------------------------------------------

void tst_JobSpec::taskYamlValid_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("defaultName");
    QTest::addColumn<QByteArray>("wire");
    QTest::addColumn<QString>("datasetLocation");

    QTest::newRow("minimal, default name")
        << taskYaml(BaseJobData) << QStringLiteral("my-repo")
        << QByteArray(R"({"kind": "ddl", "jobName": "my-repo", "image": "",
            "killAllOnCompletedTaskNumber": 0, "retryCount": 0,
            "taskRoles": [{"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 2048,
                           "gpuNumber": 0, "command": ""}]})")
        << QStringLiteral("./data");
    QTest::newRow("every key")
        << QByteArray("# comment\njob_data:\n  job_name: mnist.v2\n  dataset:\n"
                      "    dataset_location: \"/data/mnist\"\n  worker_required: 3\n"
                      "  gpu_per_worker: 2\n  cpu_per_worker: 8\n  memory_mb_per_worker: 100\n"
                      "  retry_count: 4\n  image: localhost/ddl-test:1\n")
        << QStringLiteral("ignored")
        << QByteArray(R"({"kind": "ddl", "jobName": "mnist.v2", "image": "localhost/ddl-test:1",
            "killAllOnCompletedTaskNumber": 0, "retryCount": 4,
            "taskRoles": [{"name": "worker", "taskNumber": 3, "cpuNumber": 8, "memoryMB": 100,
                           "gpuNumber": 2, "command": ""}]})")
        << QStringLiteral("/data/mnist");
    QTest::newRow("flow style, numeric name, null optional")
        << QByteArray("{job_data: {job_name: 2024, dataset: {dataset_location: d}, "
                      "worker_required: 1, gpu_per_worker: ~}}")
        << QString() << QByteArray(R"({"kind": "ddl", "jobName": "2024", "image": "",
            "killAllOnCompletedTaskNumber": 0, "retryCount": 0,
            "taskRoles": [{"name": "worker", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 2048,
                           "gpuNumber": 0, "command": ""}]})")
        << QStringLiteral("d");
}

void tst_JobSpec::taskYamlValid()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, defaultName);
    QFETCH(QByteArray, wire);
    QFETCH(QString, datasetLocation);

    const SpecParseResult result = JobSpecParser::parseTaskYamlDetailed(yaml, defaultName);
    QCOMPARE(messages(result.errors), QStringList());
    QVERIFY(result.ok());
    QCOMPARE(result.spec->kind, JobSpec::Kind::Ddl);
    QCOMPARE(result.spec->datasetLocation, datasetLocation);
    QCOMPARE(result.spec->toJson(), parseObject(wire));
    QVERIFY(!result.spec->toJson().contains(QLatin1String("datasetLocation")));
    QVERIFY(JobSpecParser::parseTaskYaml(yaml, defaultName).ok());
}

void tst_JobSpec::taskYamlInvalid_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("defaultName");
    QTest::addColumn<QStringList>("errors");

    const QString repo = QStringLiteral("repo");
    const auto with = [](const char *extra) {
        const QByteArray lines = QByteArray(BaseJobData) + extra;
        return taskYaml(lines.constData());
    };

    QTest::newRow("worker_required missing")
        << taskYaml("dataset:\n  dataset_location: d\n") << repo
        << lines("job_data.worker_required: is required");
    QTest::newRow("worker_required 0")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: 0\n") << repo
        << lines("job_data.worker_required: must be >= 1, got 0");
    QTest::newRow("worker_required word")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: two\n") << repo
        << lines("job_data.worker_required: must be an integer, got string");
    QTest::newRow("worker_required quoted")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: '2'\n") << repo
        << lines("job_data.worker_required: must be an integer, got string");
    QTest::newRow("worker_required fraction")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: 1.5\n") << repo
        << lines("job_data.worker_required: must be an integer, got 1.5");
    QTest::newRow("worker_required boolean")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: true\n") << repo
        << lines("job_data.worker_required: must be an integer, got boolean");
    QTest::newRow("worker_required sequence")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: [1]\n") << repo
        << lines("job_data.worker_required: must be an integer, got sequence");
    QTest::newRow("worker_required empty")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required:\n") << repo
        << lines("job_data.worker_required: must be an integer, got null");
    QTest::newRow("worker_required too large")
        << taskYaml("dataset:\n  dataset_location: d\nworker_required: 99999999999\n") << repo
        << lines("job_data.worker_required: must be an integer between -2147483648 and "
                 "2147483647, got 99999999999");
    QTest::newRow("gpu_per_worker -1") << with("gpu_per_worker: -1\n") << repo
                                       << lines("job_data.gpu_per_worker: must be >= 0, got -1");
    QTest::newRow("cpu_per_worker 0") << with("cpu_per_worker: 0\n") << repo
                                      << lines("job_data.cpu_per_worker: must be >= 1, got 0");
    QTest::newRow("memory_mb_per_worker 99")
        << with("memory_mb_per_worker: 99\n") << repo
        << lines("job_data.memory_mb_per_worker: must be >= 100, got 99");
    QTest::newRow("retry_count -1")
        << with("retry_count: -1\n") << repo << lines("job_data.retry_count: must be >= 0, got -1");
    QTest::newRow("job_name with a space")
        << with("job_name: my job\n") << repo
        << lines(R"(job_data.job_name: must match [A-Za-z0-9._~-]+, got "my job")");
    QTest::newRow("job_name mapping") << with("job_name: {a: 1}\n") << repo
                                      << lines("job_data.job_name: must be a string, got mapping");
    QTest::newRow("default name invalid")
        << taskYaml(BaseJobData) << QStringLiteral("my folder")
        << lines(R"(job_data.job_name: must match [A-Za-z0-9._~-]+, got "my folder")"
                 " (the default name; set job_data.job_name)");
    QTest::newRow("no name at all")
        << taskYaml(BaseJobData) << QString()
        << lines("job_data.job_name: is required (there is no default name)");
    QTest::newRow("dataset missing")
        << taskYaml("worker_required: 1\n") << repo << lines("job_data.dataset: is required");
    QTest::newRow("dataset string") << taskYaml("dataset: ./data\nworker_required: 1\n") << repo
                                    << lines("job_data.dataset: must be a mapping, got string");
    QTest::newRow("dataset_location missing")
        << taskYaml("dataset:\n  path: d\nworker_required: 1\n") << repo
        << QStringList{QStringLiteral("job_data.dataset.dataset_location: is required"),
                       unknown("job_data.dataset.path", "dataset_location")};
    QTest::newRow("dataset_location empty")
        << taskYaml("dataset:\n  dataset_location: ''\nworker_required: 1\n") << repo
        << lines("job_data.dataset.dataset_location: must not be empty");
    QTest::newRow("unknown job_data key")
        << with("gpus: 1\n") << repo << QStringList{unknown("job_data.gpus", JobDataKnown)};
    QTest::newRow("unknown top-level key")
        << QByteArray("job_data:\n  dataset:\n    dataset_location: d\n  worker_required: 1\n"
                      "image: x\n")
        << repo << QStringList{unknown("image", "job_data")};
    QTest::newRow("duplicate key")
        << with("worker_required: 3\n") << repo << lines("job_data.worker_required: duplicate key");
    QTest::newRow("job_data missing")
        << QByteArray("jobdata:\n  worker_required: 1\n") << repo
        << QStringList{QStringLiteral("job_data: is required"), unknown("jobdata", "job_data")};
    QTest::newRow("job_data sequence") << QByteArray("job_data:\n  - worker_required: 1\n") << repo
                                       << lines("job_data: must be a mapping, got sequence");
    QTest::newRow("empty document") << QByteArray() << repo
                                    << lines("the document must be a mapping with the key "
                                             "job_data, got null");
    QTest::newRow("scalar document") << QByteArray("hello") << repo
                                     << lines("the document must be a mapping with the key "
                                              "job_data, got string");
    QTest::newRow("syntax error")
        << QByteArray("job_data:\n  worker_required: [1,\n  dataset: x\n") << repo
        << lines("syntax error at line 4, column 1: end of sequence flow not found");
    QTest::newRow("bad indentation")
        << QByteArray("job_data:\n  worker_required: 1\n dataset: x\n") << repo
        << lines("syntax error at line 3, column 2: end of map not found");

    QTest::newRow("many errors")
        << QByteArray("job_data:\n  job_name: a b\n  dataset: {}\n  worker_required: 0\n"
                      "  gpu_per_worker: x\n  cpu_per_worker: 0\n  memory_mb_per_worker: 10\n"
                      "  retry_count: -3\n  extra: 1\n")
        << repo
        << QStringList{
               QStringLiteral("job_data.dataset.dataset_location: is required"),
               QStringLiteral("job_data.gpu_per_worker: must be an integer, got string"),
               unknown("job_data.extra", JobDataKnown),
               QStringLiteral(R"(job_data.job_name: must match [A-Za-z0-9._~-]+, got "a b")"),
               QStringLiteral("job_data.worker_required: must be >= 1, got 0"),
               QStringLiteral("job_data.cpu_per_worker: must be >= 1, got 0"),
               QStringLiteral("job_data.memory_mb_per_worker: must be >= 100, got 10"),
               QStringLiteral("job_data.retry_count: must be >= 0, got -3"),
           };
}

void tst_JobSpec::taskYamlInvalid()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, defaultName);
    QFETCH(QStringList, errors);

    const SpecParseResult result = JobSpecParser::parseTaskYamlDetailed(yaml, defaultName);
    QCOMPARE(messages(result.errors), errors);
    QVERIFY(!result.ok());

    const Result<JobSpec> plain = JobSpecParser::parseTaskYaml(yaml, defaultName);
    QVERIFY(!plain.ok());
    QCOMPARE(plain.error().code, QStringLiteral("invalid_spec"));
    QCOMPARE(plain.error().message, errors.join(u'\n'));
}

// ---- wire -------------------------------------------------------------------------------------

void tst_JobSpec::wireValid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("kind");

    QTest::newRow("openpai") << patched(R"({"kind": "openpai"})") << int(JobSpec::Kind::OpenPai);
    QTest::newRow("ddl, empty image and command")
        << patched(R"({"kind": "ddl", "image": "", "role": {"command": ""}})")
        << int(JobSpec::Kind::Ddl);
    QTest::newRow("ddl, no image and no command")
        << patched(R"({"kind": "ddl", "image": null, "role": {"command": null}})")
        << int(JobSpec::Kind::Ddl);
}

void tst_JobSpec::wireValid()
{
    QFETCH(QByteArray, json);
    QFETCH(int, kind);

    const SpecParseResult result = JobSpecParser::parseWireDetailed(parseObject(json));
    QCOMPARE(messages(result.errors), QStringList());
    QCOMPARE(int(result.spec->kind), kind);
    QCOMPARE(result.spec->taskRoles.size(), 1);
    QVERIFY(JobSpecParser::parseWire(parseObject(json)).ok());
}

void tst_JobSpec::wireInvalid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("errors");

    QTest::newRow("kind missing") << patched("{}") << lines("kind: is required");
    QTest::newRow("kind unknown") << patched(R"({"kind": "slurm"})")
                                  << lines(R"(kind: must be "ddl" or "openpai", got "slurm")");
    QTest::newRow("kind number") << patched(R"({"kind": 1})")
                                 << lines("kind: must be a string, got number");
    QTest::newRow("openpai without image")
        << patched(R"({"kind": "openpai", "image": null})") << lines("image: is required");
    QTest::newRow("openpai with empty command")
        << patched(R"({"kind": "openpai", "role": {"command": ""}})")
        << lines("taskRoles[0].command: must not be empty");
    QTest::newRow("ddl still checks resources")
        << patched(R"({"kind": "ddl", "role": {"gpuNumber": -1}})")
        << lines("taskRoles[0].gpuNumber: must be >= 0, got -1");
    QTest::newRow("datasetLocation is not sent")
        << patched(R"({"kind": "ddl", "datasetLocation": "./data"})")
        << QStringList{unknown("datasetLocation", WireKnown)};
}

void tst_JobSpec::wireInvalid()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, errors);

    const SpecParseResult result = JobSpecParser::parseWireDetailed(parseObject(json));
    QCOMPARE(messages(result.errors), errors);
    QVERIFY(!JobSpecParser::parseWire(parseObject(json)).ok());
}

void tst_JobSpec::wireRoundTrip_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<bool>("yaml");

    QTest::newRow("openpai, one role") << QByteArray(BasePai) << false;
    QTest::newRow("openpai, all fields")
        << QByteArray(R"({"jobName": "j", "image": "i", "dataDir": "/d", "outputDir": "/o",
            "codeDir": "/c", "killAllOnCompletedTaskNumber": 1, "retryCount": 3, "taskRoles": [
              {"name": "a", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
               "command": "x"},
              {"name": "b", "taskNumber": 5, "cpuNumber": 2, "memoryMB": 4096, "gpuNumber": 8,
               "command": "y --flag \"quoted\""}]})")
        << false;
    QTest::newRow("openpai, every v1 field")
        << QByteArray(R"({"jobName": "j", "image": "i", "authFile": "hdfs://a/auth",
            "virtualCluster": "vc1", "gpuType": "K80", "retryCount": 1,
            "jobEnvs": {"batch_size": 32, "model": "resnet", "isDebug": false},
            "extras": {"submitFrom": "portal", "nested": {"k": "v"}}, "taskRoles": [
              {"name": "ps", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 1000, "gpuNumber": 0,
               "shmMB": 64, "command": "x", "minFailedTaskCount": null,
               "portList": [{"label": "http", "beginAt": 0, "portNumber": 2},
                            {"label": "ssh", "beginAt": 0, "portNumber": 1}]},
              {"name": "worker", "taskNumber": 3, "cpuNumber": 1, "memoryMB": 1000,
               "gpuNumber": 1, "command": "y", "minFailedTaskCount": 2,
               "minSucceededTaskCount": 3}]})")
        << false;
    QTest::newRow("ddl task.yaml")
        << QByteArray("job_data:\n  job_name: n\n  dataset:\n    dataset_location: /x\n"
                      "  worker_required: 4\n  gpu_per_worker: 1\n  retry_count: 2\n")
        << true;
}

void tst_JobSpec::wireRoundTrip()
{
    QFETCH(QByteArray, source);
    QFETCH(bool, yaml);

    Result<JobSpec> original = yaml ? JobSpecParser::parseTaskYaml(source, QString())
                                    : JobSpecParser::parsePaiJson(source);
    QVERIFY(original.ok());
    const QJsonObject wire = original->toJson();
    // Through text, as it travels.
    const QJsonObject received = parseObject(QJsonDocument(wire).toJson());
    const SpecParseResult back = JobSpecParser::parseWireDetailed(received);
    QCOMPARE(messages(back.errors), QStringList());

    JobSpec expected = *original;
    expected.datasetLocation.clear(); // client-side only
    QCOMPARE(*back.spec, expected);
    QCOMPARE(back.spec->toJson(), wire);
}

// ---- validator --------------------------------------------------------------------------------

void tst_JobSpec::validator_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("command");
    QTest::addColumn<int>("killAll");
    QTest::addColumn<QStringList>("errors");

    const int ddl = int(JobSpec::Kind::Ddl);
    const int pai = int(JobSpec::Kind::OpenPai);
    const QString image = QStringLiteral("img");
    const QString command = QStringLiteral("run");

    QTest::newRow("openpai valid") << pai << image << command << 3 << QStringList();
    QTest::newRow("ddl without image and command")
        << ddl << QString() << QString() << 0 << QStringList();
    QTest::newRow("openpai without image and command")
        << pai << QString() << QString() << 0
        << lines("image: must not be empty\n"
                 "taskRoles[0].command: must not be empty\n"
                 "taskRoles[1].command: must not be empty");
    QTest::newRow("killAll above total")
        << ddl << QString() << QString() << 4
        << lines("killAllOnCompletedTaskNumber: must be <= 3 (the total number of tasks), got 4");
}

void tst_JobSpec::validator()
{
    QFETCH(int, kind);
    QFETCH(QString, image);
    QFETCH(QString, command);
    QFETCH(int, killAll);
    QFETCH(QStringList, errors);

    JobSpec spec;
    spec.kind = JobSpec::Kind(kind);
    spec.jobName = QStringLiteral("job");
    spec.image = image;
    spec.killAllOnCompletedTaskNumber = killAll;
    spec.taskRoles = {TaskRole{QStringLiteral("a"), 1, 1, 100, 0, command},
                      TaskRole{QStringLiteral("b"), 2, 1, 100, 1, command}};
    QCOMPARE(messages(JobSpecValidator::validate(spec)), errors);
}

void tst_JobSpec::validatorSkipsKnownBadFields()
{
    JobSpec spec; // empty name, no roles
    spec.retryCount = -1;
    QCOMPARE(messages(JobSpecValidator::validate(spec)),
             lines("jobName: must not be empty\n"
                   "image: must not be empty\n"
                   "taskRoles: must contain at least one task role\n"
                   "retryCount: must be >= 0, got -1"));

    spec.taskRoles = {TaskRole{QStringLiteral("a b"), 0, 0, 0, -1, QString()}};
    spec.killAllOnCompletedTaskNumber = 5;
    const QSet<QString> skip{QStringLiteral("jobName"),
                             QStringLiteral("image"),
                             QStringLiteral("taskRoles[0]"),
                             QStringLiteral("retryCount")};
    // Children of a skipped path are skipped too; killAll cannot be compared to a bad total.
    QCOMPARE(messages(JobSpecValidator::validate(spec, skip)), QStringList());
}

void tst_JobSpec::names_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("jobName");
    QTest::addColumn<bool>("roleName");

    QTest::newRow("plain") << QStringLiteral("abc_XYZ-09") << true << true;
    QTest::newRow("dot and tilde") << QStringLiteral("a.b~c") << true << false;
    QTest::newRow("empty") << QString() << false << false;
    QTest::newRow("space") << QStringLiteral("a b") << false << false;
    QTest::newRow("non-ascii") << QStringLiteral("caf\u00e9") << false << false;
    QTest::newRow("slash") << QStringLiteral("a/b") << false << false;
}

void tst_JobSpec::names()
{
    QFETCH(QString, name);
    QFETCH(bool, jobName);
    QFETCH(bool, roleName);

    QCOMPARE(JobSpecValidator::isValidJobName(name), jobName);
    QCOMPARE(JobSpecValidator::isValidRoleName(name), roleName);
}

void tst_JobSpec::totals()
{
    JobSpec spec;
    QCOMPARE(spec.totalTasks(), 0);
    spec.taskRoles = {TaskRole{QStringLiteral("ps"), 2, 3, 1000, 0, QString()},
                      TaskRole{QStringLiteral("worker"), 4, 8, 2000, 2, QString()}};
    QCOMPARE(spec.totalTasks(), 6);
    QCOMPARE(spec.totalGpus(), 8);
    QCOMPARE(spec.totalCpus(), 38);
    QCOMPARE(spec.totalMemoryMB(), 10000);

    QCOMPARE(JobSpec::kindName(JobSpec::Kind::Ddl), QStringLiteral("ddl"));
    QCOMPARE(JobSpec::kindName(JobSpec::Kind::OpenPai), QStringLiteral("openpai"));
    QCOMPARE(JobSpec::kindFromName(QStringLiteral("ddl")), JobSpec::Kind::Ddl);
    QCOMPARE(JobSpec::kindFromName(QStringLiteral("DDL")), std::nullopt);
}

void tst_JobSpec::resultError()
{
    const Result<JobSpec> result =
        JobSpecParser::parsePaiJson(patched(R"({"role": {"gpuNumber": -1, "cpuNumber": 0}})"));
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("invalid_spec"));
    QCOMPARE(result.error().field, QStringLiteral("taskRoles[0].cpuNumber"));
    QCOMPARE(result.error().message,
             QStringLiteral("taskRoles[0].cpuNumber: must be >= 1, got 0\n"
                            "taskRoles[0].gpuNumber: must be >= 0, got -1"));
}

void tst_JobSpec::specErrorJson()
{
    const SpecError error{QStringLiteral("taskRoles[1].gpuNumber"),
                          QStringLiteral("must be >= 0, got -1")};
    QCOMPARE(error.toString(), QStringLiteral("taskRoles[1].gpuNumber: must be >= 0, got -1"));
    QCOMPARE(SpecError({QString(), QStringLiteral("whole")}).toString(), QStringLiteral("whole"));
    QCOMPARE(specErrorsToJson({error}),
             parseObject(R"({"e": [{"field": "taskRoles[1].gpuNumber",
                                    "message": "must be >= 0, got -1"}]})")
                 .value(QLatin1String("e"))
                 .toArray());
    QCOMPARE(SpecError::fromJson(error.toJson()), error);
}

// ---- files and schema -------------------------------------------------------------------------

void tst_JobSpec::parseFile_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("errors");
    QTest::addColumn<QString>("jobName");

    QTest::newRow("task.yaml") << QStringLiteral("task.yaml") << QStringList()
                               << QStringLiteral("mnist-ddl");
    QTest::newRow("minimal.yml, default name")
        << QStringLiteral("minimal.yml") << QStringList() << QStringLiteral("project");
    QTest::newRow("openpai.json") << QStringLiteral("openpai.json") << QStringList()
                                  << QStringLiteral("tensorflow-cifar10");
    QTest::newRow("invalid.json") << QStringLiteral("invalid.json")
                                  << lines(R"(jobName: must match [A-Za-z0-9._~-]+, got "bad job"
taskRoles[0].gpuNumber: must be >= 0, got -1)")
                                  << QString();
    QTest::newRow("broken.json") << QStringLiteral("broken.json")
                                 << lines("syntax error at line 4, column 4: unterminated object")
                                 << QString();
}

void tst_JobSpec::parseFile()
{
    QFETCH(QString, file);
    QFETCH(QStringList, errors);
    QFETCH(QString, jobName);

    const QString path = QFINDTESTDATA(QStringLiteral("data/jobspec/") + file);
    QVERIFY2(!path.isEmpty(), qPrintable(file));
    const QString defaultName = QStringLiteral("project");

    const SpecParseResult result = JobSpecParser::parseFileDetailed(path, defaultName);
    QCOMPARE(messages(result.errors), errors);
    const Result<JobSpec> plain = JobSpecParser::parseFile(path, defaultName);
    QCOMPARE(plain.ok(), errors.isEmpty());
    if (errors.isEmpty()) {
        QCOMPARE(plain->jobName, jobName);
        QCOMPARE(*plain, *result.spec);
    } else {
        QCOMPARE(plain.error().code, QStringLiteral("invalid_spec"));
    }
}

void tst_JobSpec::parseFileUnreadable()
{
    const QString missing = QStringLiteral("/nonexistent/dir/task.yaml");
    const Result<JobSpec> result = JobSpecParser::parseFile(missing, QString());
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("io_error"));
    QVERIFY2(result.error().message.startsWith(QStringLiteral("cannot read ") + missing),
             qPrintable(result.error().message));
    QCOMPARE(JobSpecParser::parseFileDetailed(missing, QString()).errors.size(), 1);

    const QString text = QFINDTESTDATA("data/jobspec/spec.txt");
    QVERIFY(!text.isEmpty());
    const Result<JobSpec> unknownFormat = JobSpecParser::parseFile(text, QString());
    QVERIFY(!unknownFormat.ok());
    QCOMPARE(unknownFormat.error().code, QStringLiteral("invalid_spec"));
    QVERIFY(unknownFormat.error().message.startsWith(QStringLiteral("cannot tell the format")));
}

void tst_JobSpec::schemaMatchesWireForm()
{
    const QString path = QFINDTESTDATA("../../resources/jobspec.schema.json");
    QVERIFY(!path.isEmpty());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonParseError error;
    const QJsonObject schema = QJsonDocument::fromJson(file.readAll(), &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(schema.value(QLatin1String("$schema")).toString(),
             QStringLiteral("https://json-schema.org/draft/2020-12/schema"));
    QCOMPARE(schema.value(QLatin1String("additionalProperties")), QJsonValue(false));

    // Every field the wire form has is described, and nothing else.
    const Result<JobSpec> spec = JobSpecParser::parsePaiJson(
        QByteArray(R"({"jobName": "j", "image": "i", "dataDir": "/d", "outputDir": "/o",
            "codeDir": "/c", "authFile": "a", "virtualCluster": "v", "gpuType": "g",
            "minWorkerTrust": 50, "jobEnvs": {"A": "1"}, "extras": {"x": 1}, "taskRoles": [{"name": "a",
            "taskNumber": 2, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "x",
            "shmMB": 64, "portList": [{"label": "http", "beginAt": 0, "portNumber": 1}],
            "minFailedTaskCount": 2, "minSucceededTaskCount": 1}]})"));
    QVERIFY(spec.ok());
    const QJsonObject wire = spec->toJson();
    const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    QCOMPARE(properties.keys(), wire.keys());

    const QJsonObject role =
        schema.value(QLatin1String("$defs")).toObject().value(QLatin1String("taskRole")).toObject();
    QCOMPARE(role.value(QLatin1String("additionalProperties")), QJsonValue(false));
    const QStringList roleKeys = role.value(QLatin1String("properties")).toObject().keys();
    QCOMPARE(roleKeys, wire.value(QLatin1String("taskRoles")).toArray().at(0).toObject().keys());

    QStringList required;
    for (const QJsonValue &value : schema.value(QLatin1String("required")).toArray())
        required.append(value.toString());
    required.sort();
    QCOMPARE(required,
             (QStringList{
                 QStringLiteral("jobName"), QStringLiteral("kind"), QStringLiteral("taskRoles")}));
}

// ---- OpenPAI configs as people write them ------------------------------------------------------

void tst_JobSpec::comments_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("errors");
    QTest::addColumn<QString>("command");

    QTest::newRow("line comments, as seed 004 writes them") << QByteArray(R"json({
  // the job's name
  "jobName": "hello", // after a value
  "image": "ubuntu",
  "taskRoles": [
    {
      "name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
      // what it runs
      "command": "echo hello"
    }
  ]
}
// after the document)json") << QStringList() << QStringLiteral("echo hello");
    QTest::newRow("block comments") << QByteArray(R"json(/* a header
   over lines */ {"jobName": "b", /* inline */ "image": "i", "taskRoles": [
  {"name": "r", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
   "command": "c" /* after the last value */}]} /* trailing */)json")
                                    << QStringList() << QStringLiteral("c");
    QTest::newRow("comment markers inside strings are text")
        << QByteArray(R"json({"jobName": "s", "image": "http://registry.example/img", // real
  "taskRoles": [{"name": "r", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100,
  "gpuNumber": 0, "command": "python3 x.py // no /* nor */ && curl http://example.com/a//b"}]})json")
        << QStringList()
        << QStringLiteral("python3 x.py // no /* nor */ && curl http://example.com/a//b");
    QTest::newRow("escaped quotes and backslashes before a marker")
        << QByteArray(R"json({"jobName": "e", "image": "i", "taskRoles": [{"name": "r",
  "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
  "command": "echo \"a // b\" \\"}]} // done)json")
        << QStringList() << QStringLiteral("echo \"a // b\" \\");
    QTest::newRow("CRLF line ends")
        << QByteArray("{\r\n  \"jobName\": \"w\", // windows\r\n  \"image\": \"i\",\r\n"
                      "  \"taskRoles\": [{\"name\": \"r\", \"taskNumber\": 1, \"cpuNumber\": 1,"
                      " \"memoryMB\": 100, \"gpuNumber\": 0, \"command\": \"c\"}]\r\n}\r\n")
        << QStringList() << QStringLiteral("c");

    // Errors after comments still name the right line and column.
    QTest::newRow("syntax error below comments")
        << QByteArray("// line 1\n/* line 2\n   line 3 */\n{\"jobName\": \"x\",\n"
                      "  \"image\": \"y\"\n  \"taskRoles\": []}\n")
        << lines("syntax error at line 6, column 4: unterminated object") << QString();
    QTest::newRow("columns count characters, not bytes")
        << QByteArray("/* \xc3\xbc */ {\"jobName\": \"x\" \"image\": \"y\"}")
        << lines("syntax error at line 1, column 26: unterminated object") << QString();
    QTest::newRow("block comment never closed")
        << QByteArray("{\"jobName\": \"x\",\n  /* never closed\n  \"image\": \"y\"}")
        << lines("syntax error at line 2, column 3: a /* comment is never closed; end it with */")
        << QString();
    QTest::newRow("field errors are unchanged by comments")
        << QByteArray("{ // c\n" + patched(R"({"role": {"gpuNumber": -1}})").mid(1))
        << lines("taskRoles[0].gpuNumber: must be >= 0, got -1") << QString();
}

void tst_JobSpec::comments()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, errors);
    QFETCH(QString, command);

    const SpecParseResult result = JobSpecParser::parsePaiJsonDetailed(json);
    QCOMPARE(messages(result.errors), errors);
    if (errors.isEmpty())
        QCOMPARE(result.spec->taskRoles.at(0).command, command);
    // The config reader takes the same text.
    QCOMPARE(messages(JobSpecParser::parsePaiConfigDetailed(json).errors), errors);
}

// Every role as the wire writes it, so that a row states all of it.
void tst_JobSpec::openPaiConfigs_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QByteArray>("expected"); // these keys of the wire form, exactly
    QTest::addColumn<QStringList>("noteFields");

    QTest::newRow("v1 hello world, as the portal exports it")
        << QByteArray(R"json({
  "jobName": "helloworld_8bc1",
  "image": "openpai/pai.example.tensorflow",
  "authFile": "",
  "dataDir": "",
  "outputDir": "",
  "codeDir": "",
  "virtualCluster": "default",
  "gpuType": "",
  "retryCount": 0,
  "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 4, "memoryMB": 8192,
    "shmMB": 64, "gpuNumber": 0, "minFailedTaskCount": 1, "minSucceededTaskCount": null,
    "command": "echo hello", "portList": []}],
  "jobEnvs": {},
  "extras": {}
})json") << QByteArray(R"json({"jobName": "helloworld_8bc1", "virtualCluster": "default",
  "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 4, "memoryMB": 8192,
    "gpuNumber": 0, "shmMB": 64, "command": "echo hello"}]})json")
        << QStringList{QStringLiteral("image"), QStringLiteral("virtualCluster")};

    QTest::newRow("v1 tensorflow ps/worker with portList and comments")
        << QByteArray(R"json({
  "jobName": "tensorflow-distributed-jobguid",
  // customized tensorflow docker image
  "image": "your_docker_registry/pai.run.tensorflow",
  // data from http://www.cs.toronto.edu/~kriz/cifar.html
  "dataDir": "$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/data",
  "virtualCluster": "your_virtual_cluster",
  "taskRoles": [
    {
      "name": "ps_server",
      "taskNumber": 2, // two parameter servers
      "cpuNumber": 2,
      "memoryMB": 8192,
      "gpuNumber": 0,
      "portList": [
        {"label": "http", "beginAt": 0, "portNumber": 1},
        {"label": "ssh", "beginAt": 0, "portNumber": 1}
      ],
      "command": "python3 code/tf_cnn_benchmarks.py --batch_size=$batch_size --ps_hosts=$PAI_TASK_ROLE_ps_server_HOST_LIST --job_name=ps"
    },
    {
      "name": "worker",
      "taskNumber": 2,
      "cpuNumber": 2,
      "memoryMB": 16384,
      "gpuNumber": 4,
      "portList": [
        {"label": "http", "beginAt": 0, "portNumber": 1},
        {"label": "ssh", "beginAt": 0, "portNumber": 1}
      ],
      "command": "python3 code/tf_cnn_benchmarks.py --job_name=worker",
      /* end the job when both workers are done */
      "minSucceededTaskCount": 2
    }
  ],
  "retryCount": 0,
  "jobEnvs": {
    "batch_size": 32,
    "job_model": "resnet20"
  },
  "extras": {
  }
})json") << QByteArray(R"json({"jobEnvs": {"batch_size": 32, "job_model": "resnet20"},
  "dataDir": "$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/data",
  "taskRoles": [
    {"name": "ps_server", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 8192, "gpuNumber": 0,
     "portList": [{"label": "http", "beginAt": 0, "portNumber": 1},
                  {"label": "ssh", "beginAt": 0, "portNumber": 1}],
     "command": "python3 code/tf_cnn_benchmarks.py --batch_size=$batch_size --ps_hosts=$PAI_TASK_ROLE_ps_server_HOST_LIST --job_name=ps"},
    {"name": "worker", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 16384, "gpuNumber": 4,
     "portList": [{"label": "http", "beginAt": 0, "portNumber": 1},
                  {"label": "ssh", "beginAt": 0, "portNumber": 1}],
     "command": "python3 code/tf_cnn_benchmarks.py --job_name=worker",
     "minSucceededTaskCount": 2}]})json")
        << QStringList{QStringLiteral("image"), QStringLiteral("virtualCluster")};

    QTest::newRow("v1 jupyter with gpuType and a null completion policy")
        << QByteArray(R"json({"jobName": "jupyter", "image": "openpai/tensorflow-py36-cu90",
  "gpuType": "TITANX", "retryCount": 0, "taskRoles": [{"name": "task_1", "taskNumber": 1,
  "cpuNumber": 1, "memoryMB": 8192, "shmMB": 64, "gpuNumber": 1,
  "minFailedTaskCount": null, "minSucceededTaskCount": null,
  "command": "jupyter notebook --port=$PAI_CONTAINER_HOST_jupyter_PORT_LIST",
  "portList": [{"label": "jupyter", "beginAt": 0, "portNumber": 1}]}],
  "jobEnvs": {"isDebug": true}})json")
        << QByteArray(R"json({"gpuType": "TITANX", "jobEnvs": {"isDebug": true},
  "taskRoles": [{"name": "task_1", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 8192,
    "gpuNumber": 1, "shmMB": 64, "minFailedTaskCount": null,
    "command": "jupyter notebook --port=$PAI_CONTAINER_HOST_jupyter_PORT_LIST",
    "portList": [{"label": "jupyter", "beginAt": 0, "portNumber": 1}]}]})json")
        << QStringList{QStringLiteral("image")};

    QTest::newRow("v1 horovod with authFile, killAll and a fixed port")
        << QByteArray(R"json({"jobName": "horovod-mpi", "image": "registry.example/horovod:0.16",
  "authFile": "hdfs://10.0.0.1:9000/user/auth.txt", "killAllOnCompletedTaskNumber": 1,
  "extras": {"foo": 1}, "taskRoles": [{"name": "master", "taskNumber": 1, "cpuNumber": 2,
  "memoryMB": 4096, "gpuNumber": 1, "minFailedTaskCount": 1,
  "portList": [{"label": "mpi", "beginAt": 2222, "portNumber": 2}],
  "command": "mpirun -np 2 python3 train.py"}]})json")
        << QByteArray(R"json({"authFile": "hdfs://10.0.0.1:9000/user/auth.txt",
  "killAllOnCompletedTaskNumber": 1, "extras": {"foo": 1}, "taskRoles": [{"name": "master",
  "taskNumber": 1, "cpuNumber": 2, "memoryMB": 4096, "gpuNumber": 1,
  "portList": [{"label": "mpi", "beginAt": 2222, "portNumber": 2}],
  "command": "mpirun -np 2 python3 train.py"}]})json")
        << QStringList{QStringLiteral("image"),
                       QStringLiteral("authFile"),
                       QStringLiteral("extras"),
                       QStringLiteral("taskRoles[0].portList[0].beginAt")};

    QTest::newRow("v2 hello world")
        << QByteArray(R"yaml(protocolVersion: 2
name: hello_world
type: job
prerequisites:
  - protocolVersion: 2
    name: ubuntu
    type: dockerimage
    uri: ubuntu:18.04
taskRoles:
  taskrole:
    instances: 1
    dockerImage: ubuntu
    resourcePerInstance:
      cpu: 1
      memoryMB: 1024
      gpu: 0
    commands:
      - echo "Hello, OpenPAI"
defaults:
  virtualCluster: default
extras:
  submitFrom: submit-job-v2
)yaml") << QByteArray(R"json({"jobName": "hello_world", "image": "ubuntu:18.04",
  "virtualCluster": "default", "extras": {"submitFrom": "submit-job-v2"}, "retryCount": 0,
  "taskRoles": [{"name": "taskrole", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024,
    "gpuNumber": 0, "command": "echo \"Hello, OpenPAI\""}]})json")
        << QStringList{
               QStringLiteral("image"), QStringLiteral("virtualCluster"), QStringLiteral("extras")};

    QTest::newRow("v2 tensorflow with parameters, secrets, ports, completion, deployment")
        << QByteArray(R"yaml(protocolVersion: 2
name: tf_cifar10
type: job
version: 1.0
contributor: someone
description: distributed training
prerequisites:
  - name: tf_image
    type: dockerimage
    uri: openpai/pai.example.tensorflow
    auth:
      username: user
      password: <% $secrets.docker_password %>
      registryuri: example.azurecr.io
  - name: cifar10
    type: data
    uri:
      - https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz
parameters:
  model: resnet20
  batchsize: 32
secrets:
  docker_password: hunter2
  token: abc123
jobRetryCount: 1
taskRoles:
  ps_server:
    instances: 1
    completion:
      minFailedInstances: 1
      minSucceededInstances: null
    dockerImage: tf_image
    data: cifar10
    extraContainerOptions:
      shmMB: 256
    resourcePerInstance:
      cpu: 2
      memoryMB: 8192
      gpu: 0
      ports:
        ssh: 1
        http: 1
    commands:
      - echo ps <% $parameters.model %>
  worker:
    instances: 2
    completion:
      minSucceededInstances: 2
    taskRetryCount: 1
    dockerImage: tf_image
    data: cifar10
    resourcePerInstance: {cpu: 2, memoryMB: 16384, gpu: 1, ports: {http: 2}}
    commands:
      - >
        python3 train.py --model=<% $parameters.model %>
        --batch_size=<%$parameters.batchsize%>
      - echo token=<% $secrets.token %> from <% $data.uri[0] %>
deployments:
  - name: prod
    taskRoles:
      worker:
        preCommands:
          - echo pre <% $data.name %>
        postCommands:
          - echo post
defaults:
  deployment: prod
)yaml") << QByteArray(R"json({"jobName": "tf_cifar10", "image": "openpai/pai.example.tensorflow",
  "retryCount": 1, "taskRoles": [
    {"name": "ps_server", "taskNumber": 1, "cpuNumber": 2, "memoryMB": 8192, "gpuNumber": 0,
     "shmMB": 256, "portList": [{"label": "ssh", "beginAt": 0, "portNumber": 1},
                                {"label": "http", "beginAt": 0, "portNumber": 1}],
     "command": "echo ps resnet20"},
    {"name": "worker", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 16384, "gpuNumber": 1,
     "portList": [{"label": "http", "beginAt": 0, "portNumber": 2}],
     "minSucceededTaskCount": 2,
     "command": "echo pre cifar10\npython3 train.py --model=resnet20 --batch_size=32\necho token=abc123 from https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz\necho post"}]})json")
        << QStringList{QStringLiteral("prerequisites[0].auth"),
                       QStringLiteral("taskRoles.ps_server.data"),
                       QStringLiteral("taskRoles.worker.taskRetryCount"),
                       QStringLiteral("taskRoles.worker.data"),
                       QStringLiteral("taskRoles.worker"),
                       QStringLiteral("image")};

    QTest::newRow("v2 written as JSON, with a comment")
        << QByteArray(R"json(// v2 as JSON
{"protocolVersion": 2, "name": "json_v2", "type": "job",
 "prerequisites": [{"name": "img", "type": "dockerimage", "uri": "python:3.11"}],
 "taskRoles": {"main": {"instances": 1, "dockerImage": "img",
   "completion": {"minFailedInstances": null},
   "resourcePerInstance": {"cpu": 1, "memoryMB": 512, "gpu": 0, "ports": {"api": 1}},
   "commands": ["python3 -V", "echo $PAI_CONTAINER_HOST_api_PORT_LIST"]}}})json")
        << QByteArray(R"json({"jobName": "json_v2", "image": "python:3.11", "taskRoles": [
  {"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "minFailedTaskCount": null,
   "portList": [{"label": "api", "beginAt": 0, "portNumber": 1}],
   "command": "python3 -V\necho $PAI_CONTAINER_HOST_api_PORT_LIST"}]})json")
        << QStringList{QStringLiteral("image")};
}

void tst_JobSpec::openPaiConfigs()
{
    QFETCH(QByteArray, config);
    QFETCH(QByteArray, expected);
    QFETCH(QStringList, noteFields);

    const SpecParseResult result = JobSpecParser::parsePaiConfigDetailed(config);
    QCOMPARE(messages(result.errors), QStringList());
    QVERIFY(result.ok());
    QCOMPARE(result.spec->kind, JobSpec::Kind::OpenPai);
    const QJsonObject wire = result.spec->toJson();
    const QJsonObject subset = parseObject(expected);
    for (auto it = subset.begin(); it != subset.end(); ++it)
        QCOMPARE(wire.value(it.key()), it.value());

    QStringList fields;
    for (const QString &note : result.notes)
        fields << note.section(QStringLiteral(": "), 0, 0);
    QCOMPARE(fields, noteFields);

    // What the server receives reads back the same.
    const Result<JobSpec> back =
        JobSpecParser::parseWire(parseObject(QJsonDocument(wire).toJson()));
    QVERIFY(back.ok());
    QCOMPARE(*back, *result.spec);
}

void tst_JobSpec::openPaiFieldsInvalid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("errors");

    QTest::newRow("port label with a space")
        << patched(R"({"role": {"portList": [{"label": "a b", "beginAt": 0, "portNumber": 1}]}})")
        << lines(R"(taskRoles[0].portList[0].label: must match [A-Za-z0-9._~]+, got "a b")");
    QTest::newRow("port label twice")
        << patched(R"({"role": {"portList": [{"label": "http"}, {"label": "http"}]}})")
        << lines(R"(taskRoles[0].portList[1].label: duplicate label "http" in this task role; )"
                 "give each port type one entry with the portNumber it needs");
    QTest::newRow("port label missing") << patched(R"({"role": {"portList": [{"portNumber": 1}]}})")
                                        << lines("taskRoles[0].portList[0].label: is required");
    QTest::newRow("portNumber -1")
        << patched(R"({"role": {"portList": [{"label": "a", "portNumber": -1}]}})")
        << lines("taskRoles[0].portList[0].portNumber: must be >= 0, got -1");
    QTest::newRow("beginAt beyond the port range")
        << patched(R"({"role": {"portList": [{"label": "a", "beginAt": 70000}]}})")
        << lines("taskRoles[0].portList[0].beginAt: must be a port number <= 65535, got 70000");
    QTest::newRow("too many ports")
        << patched(R"({"role": {"portList": [{"label": "a", "portNumber": 40},
                                              {"label": "b", "portNumber": 25}]}})")
        << lines("taskRoles[0].portList: asks for 65 ports per task; at most 64 can be booked");
    QTest::newRow("portList an object")
        << patched(R"({"role": {"portList": {"http": 1}}})")
        << lines("taskRoles[0].portList: must be an array, got object");
    QTest::newRow("port entry a string")
        << patched(R"({"role": {"portList": ["http"]}})")
        << lines(R"(taskRoles[0].portList[0]: must be an object {"label", "beginAt", )"
                 R"("portNumber"}, got string)");
    QTest::newRow("unknown port field")
        << patched(R"({"role": {"portList": [{"label": "a", "protocol": "tcp"}]}})")
        << QStringList{unknown("taskRoles[0].portList[0].protocol", PortKnown)};
    QTest::newRow("minFailedTaskCount 0")
        << patched(R"({"role": {"minFailedTaskCount": 0}})")
        << lines("taskRoles[0].minFailedTaskCount: must be null or >= 1, got 0");
    QTest::newRow("minSucceededTaskCount above taskNumber")
        << patched(R"({"role": {"minSucceededTaskCount": 3}})")
        << lines("taskRoles[0].minSucceededTaskCount: must be <= taskNumber (2), got 3; it could "
                 "never be reached");
    QTest::newRow("minFailedTaskCount a string")
        << patched(R"({"role": {"minFailedTaskCount": "1"}})")
        << lines("taskRoles[0].minFailedTaskCount: must be an integer, got string");
    QTest::newRow("shmMB above memoryMB")
        << patched(R"({"role": {"shmMB": 9000}})")
        << lines("taskRoles[0].shmMB: must be <= memoryMB (8192), got 9000; /dev/shm counts "
                 "against the task's memory");
    QTest::newRow("shmMB -1") << patched(R"({"role": {"shmMB": -1}})")
                              << lines("taskRoles[0].shmMB: must be >= 0, got -1");
    QTest::newRow("jobEnvs names")
        << patched(R"({"jobEnvs": {"1abc": "x", "a-b": "y", "ok_1": 2}})")
        << lines("jobEnvs.1abc: is not an environment variable name: use letters, digits and _, "
                 "not starting with a digit\n"
                 "jobEnvs.a-b: is not an environment variable name: use letters, digits and _, "
                 "not starting with a digit");
    QTest::newRow("jobEnvs values")
        << patched(R"({"jobEnvs": {"a": {"b": 1}, "c": null, "d": [1]}})")
        << lines("jobEnvs.a: must be a string, number or boolean, got object\n"
                 "jobEnvs.c: must be a string, number or boolean, got null\n"
                 "jobEnvs.d: must be a string, number or boolean, got array");
    QTest::newRow("jobEnvs an array")
        << patched(R"({"jobEnvs": ["A=1"]})") << lines("jobEnvs: must be an object, got array");
    QTest::newRow("extras a string")
        << patched(R"({"extras": "x"})") << lines("extras: must be an object, got string");
    QTest::newRow("gpuType a number")
        << patched(R"({"gpuType": 1})") << lines("gpuType: must be a string, got number");
    QTest::newRow("virtualCluster null") << patched(R"({"virtualCluster": false})")
                                         << lines("virtualCluster: must be a string, got boolean");
}

void tst_JobSpec::openPaiFieldsInvalid()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, errors);

    const SpecParseResult result = JobSpecParser::parsePaiJsonDetailed(json);
    QCOMPARE(messages(result.errors), errors);
    QVERIFY(!result.ok());
}

namespace {

// A v2 job with one task role "worker" whose mapping holds roleLines; topLines go before
// taskRoles.
QByteArray v2Job(const char *roleLines, const char *topLines = "")
{
    QByteArray yaml = "protocolVersion: 2\nname: j\ntype: job\nprerequisites:\n"
                      "  - name: img\n    type: dockerimage\n    uri: python:3\n";
    yaml += topLines;
    yaml += "taskRoles:\n  worker:\n";
    for (const QByteArray &line : QByteArray(roleLines).split('\n')) {
        if (!line.isEmpty())
            yaml += "    " + line + '\n';
    }
    return yaml;
}

const char V2Role[] = "dockerImage: img\nresourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                      "commands:\n  - echo hi\n";

} // namespace

void tst_JobSpec::protocolV2Invalid_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("errors");

    QTest::newRow("valid base") << v2Job(V2Role) << QStringList();
    QTest::newRow("gpu -1")
        << v2Job("dockerImage: img\nresourcePerInstance: {cpu: 1, memoryMB: 512, gpu: -1}\n"
                 "commands: [echo]\n")
        << lines("taskRoles.worker.resourcePerInstance.gpu: must be >= 0, got -1");
    QTest::newRow("resourcePerInstance misspelled")
        << v2Job("dockerImage: img\nresourcePerInstanec: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                 "commands: [echo]\n")
        << lines("taskRoles.worker.resourcePerInstance: is required\n"
                 "taskRoles.worker.resourcePerInstanec: unknown field; known fields are: "
                 "instances, completion, taskRetryCount, dockerImage, data, output, script, "
                 "extraContainerOptions, resourcePerInstance, commands");
    QTest::newRow("unknown parameter")
        << v2Job("dockerImage: img\nresourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                 "commands:\n  - echo ok\n  - echo <% $parameters.modle %>\n",
                 "parameters:\n  model: x\n")
        << lines("taskRoles.worker.commands[1]: <% $parameters.modle %> names nothing this job "
                 "defines; check the name under parameters");
    QTest::newRow("data index out of range")
        << v2Job("dockerImage: img\ndata: d\nresourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                 "commands: ['get <% $data.uri[1] %>']\n",
                 "")
               .replace("    uri: python:3\n",
                        "    uri: python:3\n  - name: d\n    type: data\n    uri: [http://a]\n")
        << lines("taskRoles.worker.commands[0]: <% $data.uri[1] %> names nothing this job "
                 "defines; check the name under prerequisites");
    QTest::newRow("dockerImage names nothing")
        << v2Job("dockerImage: nope\nresourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                 "commands: [echo]\n")
        << lines("taskRoles.worker.dockerImage: names no prerequisite of type dockerimage; add "
                 "one under prerequisites (name: nope, type: dockerimage, uri: ...)");
    QTest::newRow("type not job")
        << v2Job(V2Role).replace("type: job", "type: data")
        << lines(R"(type: must be "job", got "data": only jobs can be submitted)");
    QTest::newRow("protocolVersion 1")
        << v2Job(V2Role).replace("protocolVersion: 2", "protocolVersion: 1")
        << lines("protocolVersion: must be 2, got 1; this reads OpenPAI's protocol v2 (a v1 job "
                 "is JSON)");
    QTest::newRow("instances 0")
        << v2Job(QByteArray("instances: 0\n" + QByteArray(V2Role)).constData())
        << lines("taskRoles.worker.instances: must be >= 1, got 0");
    QTest::newRow("minSucceededInstances above instances")
        << v2Job(QByteArray("instances: 2\ncompletion: {minSucceededInstances: 3}\n" +
                            QByteArray(V2Role))
                     .constData())
        << lines("taskRoles.worker.completion.minSucceededInstances: must be <= taskNumber (2), "
                 "got 3; it could never be reached");
    QTest::newRow("minFailedInstances a string")
        << v2Job(QByteArray("completion: {minFailedInstances: one}\n" + QByteArray(V2Role))
                     .constData())
        << lines("taskRoles.worker.completion.minFailedInstances: must be an integer or null, "
                 "got string");
    QTest::newRow("command not a string")
        << v2Job("dockerImage: img\nresourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                 "commands:\n  - [a, b]\n")
        << lines("taskRoles.worker.commands[0]: must be a string (one command), got sequence");
    QTest::newRow("deployment that does not exist")
        << v2Job(V2Role, "defaults:\n  deployment: prod\n")
        << lines("defaults.deployment: names no deployment; deployments has: none");
    QTest::newRow("port label with a space")
        << v2Job("dockerImage: img\nresourcePerInstance:\n  cpu: 1\n  memoryMB: 512\n  gpu: 0\n"
                 "  ports: {'a b': 1}\ncommands: [echo]\n")
        << lines(R"(taskRoles.worker.resourcePerInstance.ports.a b: must match [A-Za-z0-9._~]+, )"
                 R"(got "a b")");
    QTest::newRow("role name with a dot")
        << v2Job(V2Role).replace("  worker:", "  work.er:")
        << lines(R"(taskRoles.work.er: must match [A-Za-z0-9_-]+, got "work.er")");
    QTest::newRow("extras expanding by aliases")
        << v2Job(V2Role,
                 "extras:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                 "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                 "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                 "  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                 "  e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n")
        << lines("extras: holds more than 10000 values; keep extras small");
    QTest::newRow("taskRoles missing") << QByteArray("protocolVersion: 2\nname: j\ntype: job\n")
                                       << lines("taskRoles: is required");
}

void tst_JobSpec::protocolV2Invalid()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, errors);

    const SpecParseResult result = JobSpecParser::parsePaiV2Detailed(yaml);
    QCOMPARE(messages(result.errors), errors);
    QCOMPARE(result.ok(), errors.isEmpty());
    QCOMPARE(messages(JobSpecParser::parsePaiConfigDetailed(yaml).errors), errors);
}

void tst_JobSpec::noEffectNotes()
{
    const Result<JobSpec> spec = JobSpecParser::parsePaiJson(R"json({"jobName": "n",
        "image": "img", "authFile": "hdfs://x/auth", "virtualCluster": "vc", "gpuType": "K80",
        "extras": {"a": 1}, "taskRoles": [{"name": "r", "taskNumber": 1, "cpuNumber": 1,
        "memoryMB": 100, "gpuNumber": 0, "command": "c",
        "portList": [{"label": "http", "beginAt": 8080, "portNumber": 1}]}]})json");
    QVERIFY(spec.ok());
    const QString noEffect = QStringLiteral(": accepted, but has no effect here: ");
    QCOMPARE(
        spec->noEffectNotes(),
        (QStringList{u"image"_s + noEffect +
                         u"only workers started with --container-runtime podman run the tasks in a "
                         "container of this image; others run them in their sandbox"_s,
                     u"authFile"_s + noEffect + u"no container registry is contacted"_s,
                     u"virtualCluster"_s + noEffect +
                         u"all workers form one pool; jobs wait in one queue"_s,
                     u"extras"_s + noEffect + u"kept with the job for you to read back"_s,
                     u"taskRoles[0].portList[0].beginAt"_s + noEffect +
                         u"ports are booked from the worker's free range; read them from "
                         "PAI_CONTAINER_HOST_http_PORT_LIST"_s}));

    // A plain OpenPAI job: only its image; a DDL job: nothing.
    QCOMPARE(JobSpecParser::parsePaiJson(BasePai)->noEffectNotes().size(), 1);
    const Result<JobSpec> ddl = JobSpecParser::parseTaskYaml(taskYaml(BaseJobData), u"p"_s);
    QVERIFY(ddl.ok());
    QCOMPARE(ddl->noEffectNotes(), QStringList());
}

void tst_JobSpec::formatByContent_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("openPai");

    QTest::newRow("v1 JSON") << QStringLiteral("job.json") << QByteArray(BasePai) << true;
    QTest::newRow("v1 JSON, comment first")
        << QStringLiteral("job.json") << QByteArray("// hello\n" + QByteArray(BasePai)) << true;
    QTest::newRow("v2 YAML") << QStringLiteral("job.yaml") << v2Job(V2Role) << true;
    QTest::newRow("v2 YAML, .yml") << QStringLiteral("job.yml") << v2Job(V2Role) << true;
    QTest::newRow("DDL task.yaml") << QStringLiteral("task.yaml") << taskYaml(BaseJobData) << false;
}

void tst_JobSpec::formatByContent()
{
    QFETCH(QString, fileName);
    QFETCH(QByteArray, text);
    QFETCH(bool, openPai);

    QCOMPARE(JobSpecParser::isPaiConfig(text), openPai);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile file(dir.filePath(fileName));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
    file.close();
    const SpecParseResult result = JobSpecParser::parseFileDetailed(file.fileName(), u"p"_s);
    QCOMPARE(messages(result.errors), QStringList());
    QCOMPARE(result.spec->kind, openPai ? JobSpec::Kind::OpenPai : JobSpec::Kind::Ddl);
    const Result<JobSpec> plain = JobSpecParser::parseFile(file.fileName(), u"p"_s);
    QVERIFY(plain.ok());
    QCOMPARE(*plain, *result.spec);
}

void tst_JobSpec::taskYamlPointsToJobConfig()
{
    QCOMPARE(messages(JobSpecParser::parseTaskYamlDetailed(v2Job(V2Role), u"p"_s).errors),
             lines("this is an OpenPAI protocol v2 job (it has protocolVersion), not a DDL "
                   "task.yaml: submit it with --job_config=FILE"));
    QCOMPARE(messages(JobSpecParser::parsePaiConfigDetailed(taskYaml(BaseJobData)).errors),
             lines(R"(not an OpenPAI job: expected a v1 job JSON object ({"jobName": ...}) or )"
                   "a protocol v2 YAML with protocolVersion: 2"));
}

QTEST_GUILESS_MAIN(tst_JobSpec)
#include "tst_jobspec.moc"
