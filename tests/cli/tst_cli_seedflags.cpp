// The Paddle and ElasticDL command lines read into DDL jobs: resource strings, the flags of
// paddle job submit and elasticdl train|predict|evaluate, $HOME/.paddle/config. Real folders in a
// QTemporaryDir; nothing is sent (tests/e2e/tst_e2e_seedjobs.cpp submits them to a real server).
#include "argumentparser.h"
#include "cliapplication.h"
#include "console.h"
#include "seed/elasticdljob.h"
#include "seed/paddleconfig.h"
#include "seed/paddlejob.h"
#include "seed/resourcestring.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl;
using namespace ddl::cli;

class TestCliSeedFlags : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void memory_data();
    void memory();
    void resourceStrings_data();
    void resourceStrings();
    void resourceStringErrors_data();
    void resourceStringErrors();
    void parserSeedForms();
    void paddleRolesAndEnvironment();
    void paddleModuleFromTheFolderAbove();
    void paddleErrors_data();
    void paddleErrors();
    void elasticDlParameterServers();
    void elasticDlAllreduceAndValidation();
    void elasticDlErrors_data();
    void elasticDlErrors();
    void paddleConfigForms();
    void paddleConfigErrors_data();
    void paddleConfigErrors();
    void programNames();
    void commandLineErrors_data();
    void commandLineErrors();

private:
    Result<SeedSubmission> paddle(const QStringList &arguments);
    Result<SeedSubmission> elasticDl(ElasticDlJob::Mode mode, const QStringList &arguments);
    static void write(const QString &path, const QByteArray &text);

    QTemporaryDir m_dir;
};

void TestCliSeedFlags::write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

void TestCliSeedFlags::initTestCase()
{
    QVERIFY(m_dir.isValid());
    write(m_dir.filePath(u"quick_start/train.py"_s), "print('training')\n");
    write(m_dir.filePath(u"zoo/mnist/model.py"_s),
          "import os\n\ndef train(dataset_dir, model_output_dir):\n    pass\n");
    write(m_dir.filePath(u"data/train/part-0"_s), "1,2,3\n");
    write(m_dir.filePath(u"data/validation/part-0"_s), "4,5,6\n");
    write(m_dir.filePath(u"elsewhere/part-0"_s), "7\n");
}

Result<SeedSubmission> TestCliSeedFlags::paddle(const QStringList &arguments)
{
    Result<ParsedArguments> parsed = ArgumentParser::parse(arguments, PaddleJob::submitOptions());
    if (!parsed)
        return parsed.error();
    return PaddleJob::read(*parsed, m_dir.path());
}

Result<SeedSubmission> TestCliSeedFlags::elasticDl(ElasticDlJob::Mode mode,
                                                   const QStringList &arguments)
{
    Result<ParsedArguments> parsed = ArgumentParser::parse(arguments, ElasticDlJob::options(mode));
    if (!parsed)
        return parsed.error();
    return ElasticDlJob::read(mode, *parsed, m_dir.path());
}

void TestCliSeedFlags::memory_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("mb");
    QTest::newRow("Mi") << u"4096Mi"_s << 4096;
    QTest::newRow("Gi") << u"4Gi"_s << 4096;
    QTest::newRow("fraction") << u"1.5Gi"_s << 1536;
    QTest::newRow("Ki rounds up") << u"1025Ki"_s << 2;
    QTest::newRow("decimal M rounds up") << u"512M"_s << 489;
    QTest::newRow("decimal G") << u"1G"_s << 954;
    QTest::newRow("spaces") << u" 256Mi "_s << 256;
}

void TestCliSeedFlags::memory()
{
    QFETCH(QString, text);
    QFETCH(int, mb);
    const Result<int> parsed = ResourceString::memoryMB(text, u"--trainer-mem"_s);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(*parsed, mb);
}

void TestCliSeedFlags::resourceStrings_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("cpus");
    QTest::addColumn<int>("memoryMB");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("notes");
    QTest::newRow("seed") << u"cpu=1,memory=4096Mi,gpu=1"_s << 1 << 4096 << 1 << 0;
    QTest::newRow("millicores round up") << u"cpu=400m,memory=1024Mi"_s << 1 << 1024 << -1 << 1;
    QTest::newRow("fraction rounds up") << u"cpu=1.5"_s << 2 << -1 << -1 << 1;
    QTest::newRow("spaces, any order") << u" gpu=2 , cpu=4 "_s << 4 << -1 << 2 << 0;
    QTest::newRow("nvidia.com/gpu") << u"nvidia.com/gpu=1"_s << -1 << -1 << 1 << 0;
    QTest::newRow("disk is noted") << u"cpu=1,ephemeral-storage=10Gi"_s << 1 << -1 << -1 << 1;
}

void TestCliSeedFlags::resourceStrings()
{
    QFETCH(QString, text);
    QFETCH(int, cpus);
    QFETCH(int, memoryMB);
    QFETCH(int, gpus);
    QFETCH(int, notes);
    const Result<ResourceRequest> parsed =
        ResourceString::parse(text, u"--worker_resource_request"_s);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(parsed->cpus.value_or(-1), cpus);
    QCOMPARE(parsed->memoryMB.value_or(-1), memoryMB);
    QCOMPARE(parsed->gpus.value_or(-1), gpus);
    QCOMPARE(parsed->notes.size(), notes);
}

void TestCliSeedFlags::resourceStringErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no unit") << u"memory=4096"_s
                             << u"'4096' is not valid: a number without a unit"_s;
    QTest::newRow("unknown unit") << u"memory=4Gb"_s << u"unknown unit 'Gb'"_s;
    QTest::newRow("unknown key") << u"cpu=1,tpu=2"_s
                                 << u"unknown resource 'tpu'; the known ones are cpu"_s;
    QTest::newRow("twice") << u"cpu=1,cpu=2"_s << u"cpu is given twice"_s;
    QTest::newRow("empty entry") << u"cpu=1,"_s << u"an empty entry"_s;
    QTest::newRow("not key=value") << u"cpu"_s << u"'cpu' is not KEY=VALUE"_s;
    QTest::newRow("zero cpu") << u"cpu=0"_s << u"more than 0 CPUs"_s;
    QTest::newRow("bad cpu") << u"cpu=2x"_s << u"expected a number of CPUs"_s;
    QTest::newRow("negative gpu") << u"gpu=-1"_s << u"expected a whole number of GPUs"_s;
    QTest::newRow("fractional gpu") << u"gpu=0.5"_s << u"expected a whole number of GPUs"_s;
}

void TestCliSeedFlags::resourceStringErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const Result<ResourceRequest> parsed = ResourceString::parse(text, u"--ps_resource_request"_s);
    QVERIFY(!parsed);
    QVERIFY(parsed.error().is(ErrorCode::Usage));
    // Which flag, and what was wrong with the given text.
    QVERIFY2(parsed.error().message.startsWith(u"--ps_resource_request"_s),
             qPrintable(parsed.error().message));
    QVERIFY2(parsed.error().message.contains(expected), qPrintable(parsed.error().message));
}

void TestCliSeedFlags::parserSeedForms()
{
    const QList<OptionSpec> specs = PaddleJob::submitOptions();
    Result<ParsedArguments> parsed = ArgumentParser::parse({u"--base-image:paddle:1.0"_s,
                                                            u"--env=A=1"_s,
                                                            u"--env"_s,
                                                            u"B=x=y"_s,
                                                            u"--use-gpu"_s,
                                                            u"--trainer_cpu=2"_s},
                                                           specs);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(parsed->value(u"base-image"_s), u"paddle:1.0"_s);
    QCOMPARE(parsed->values(u"env"_s), (QStringList{u"A=1"_s, u"B=x=y"_s}));
    QCOMPARE(parsed->value(u"use-gpu"_s), u"true"_s);
    QCOMPARE(parsed->value(u"trainer-cpu"_s), u"2"_s);

    parsed = ArgumentParser::parse({u"--use-gpu=false"_s}, specs);
    QVERIFY(parsed);
    QCOMPARE(parsed->value(u"use-gpu"_s), u"false"_s);

    parsed = ArgumentParser::parse({u"--trainer-memory=1Gi"_s}, specs);
    QVERIFY(!parsed);
    QCOMPARE(parsed.error().message,
             u"unknown option --trainer-memory (did you mean --trainer-mem=SIZE?)"_s);
    parsed = ArgumentParser::parse({u"--completely-else"_s}, specs);
    QVERIFY(!parsed);
    QCOMPARE(parsed.error().message, u"unknown option --completely-else"_s);
}

void TestCliSeedFlags::paddleRolesAndEnvironment()
{
    const Result<SeedSubmission> read = paddle({u"--job-name=cluster-quickstart"_s,
                                                u"--package-path=quick_start"_s,
                                                u"--entry-point=python train.py"_s,
                                                u"--trainers=4"_s,
                                                u"--pservers=2"_s,
                                                u"--trainer-cpu=500m"_s,
                                                u"--trainer-mem=1Gi"_s,
                                                u"--pserver-cpu=2"_s,
                                                u"--pserver-mem=512Mi"_s,
                                                u"--base-image=paddlepaddle/paddle:2.5"_s,
                                                u"--use-gpu=true"_s,
                                                u"--trainer-gpu-num=2"_s,
                                                u"--env=NUM_PASS=5"_s,
                                                u"--env"_s,
                                                u"LR=0.1"_s,
                                                u"--input=data"_s,
                                                u"--output=/out"_s});
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
    const JobSpec &spec = read->spec;
    QCOMPARE(spec.kind, JobSpec::Kind::OpenPai);
    QCOMPARE(spec.jobName, u"cluster-quickstart"_s);
    QCOMPARE(spec.image, u"paddlepaddle/paddle:2.5"_s);
    QCOMPARE(read->packageFolder, QDir(m_dir.path()).canonicalPath() + u"/quick_start"_s);
    QCOMPARE(read->datasetFolder, QDir(m_dir.path()).canonicalPath() + u"/data"_s);
    QCOMPARE(spec.outputDir, u"/out"_s);
    QCOMPARE(spec.jobEnvs.value(u"NUM_PASS"_s).toString(), u"5"_s);
    QCOMPARE(spec.jobEnvs.value(u"LR"_s).toString(), u"0.1"_s);
    QCOMPARE(spec.taskRoles.size(), 2);
    // The pservers are role 0, so their host list is PAI_TASK_ROLE_0_HOST_LIST.
    const TaskRole &pserver = spec.taskRoles.at(0);
    QCOMPARE(pserver.name, u"pserver"_s);
    QCOMPARE(pserver.taskNumber, 2);
    QCOMPARE(pserver.cpuNumber, 2);
    QCOMPARE(pserver.memoryMB, 512);
    QCOMPARE(pserver.gpuNumber, 0);
    QVERIFY(pserver.command.contains(u"PADDLE_TRAINING_ROLE=PSERVER"_s));
    QVERIFY(pserver.command.endsWith(u"; python train.py"_s));
    const TaskRole &trainer = spec.taskRoles.at(1);
    QCOMPARE(trainer.name, u"trainer"_s);
    QCOMPARE(trainer.taskNumber, 4);
    QCOMPARE(trainer.cpuNumber, 1); // 500m, rounded up
    QCOMPARE(trainer.memoryMB, 1024);
    QCOMPARE(trainer.gpuNumber, 2);
    for (const QString &part : {u"PADDLE_TRAINING_ROLE=TRAINER"_s,
                                u"PADDLE_TRAINERS_NUM=4"_s,
                                u"PADDLE_PSERVER_ENDPOINTS=\"$PAI_TASK_ROLE_0_HOST_LIST\""_s,
                                u"PADDLE_TRAINER_ID=\"$PAI_TASK_ROLE_INDEX\""_s}) {
        QVERIFY2(trainer.command.contains(part), qPrintable(trainer.command));
    }
    // The rounding and the output folder are said.
    QVERIFY(read->notes.join(u'\n').contains(u"--trainer-cpu=500m is booked as 1 whole CPU"_s));
    QVERIFY(read->notes.join(u'\n').contains(u"ddlcli download"_s));

    // Without pservers: one role; --use-gpu alone gives each trainer 1 GPU; a dataset by name.
    const Result<SeedSubmission> single = paddle({u"--package-path=quick_start"_s,
                                                  u"--module=train"_s,
                                                  u"--base-image=img"_s,
                                                  u"--use-gpu"_s,
                                                  u"--input=iris"_s,
                                                  u"--pserver-entry-point=x"_s});
    QVERIFY(!single); // a pserver flag without pservers
    QCOMPARE(single.error().field, u"pserver-entry-point"_s);
    const Result<SeedSubmission> trainerOnly = paddle({u"--package-path=quick_start"_s,
                                                       u"--module=train"_s,
                                                       u"--base-image=img"_s,
                                                       u"--use-gpu"_s,
                                                       u"--input=iris"_s});
    QVERIFY2(trainerOnly, qPrintable(trainerOnly ? QString() : trainerOnly.error().message));
    QCOMPARE(trainerOnly->spec.jobName, u"quick_start"_s);
    QCOMPARE(trainerOnly->spec.taskRoles.size(), 1);
    QCOMPARE(trainerOnly->spec.taskRoles.first().gpuNumber, 1);
    QVERIFY(trainerOnly->spec.taskRoles.first().command.endsWith(u"; python3 -m train"_s));
    QCOMPARE(trainerOnly->datasetName, u"iris"_s);
    QVERIFY(trainerOnly->datasetFolder.isEmpty());
}

void TestCliSeedFlags::paddleModuleFromTheFolderAbove()
{
    // The seed: --package-path=$PWD/quick_start --module=quick_start.train.
    const Result<SeedSubmission> read = paddle(
        {u"--package-path=quick_start"_s, u"--module=quick_start.train"_s, u"--base-image=img"_s});
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
    QVERIFY(read->spec.taskRoles.first().command.endsWith(u"; python3 -m train"_s));
    QVERIFY(read->notes.join(u'\n').contains(u"the tasks run python3 -m train"_s));
}

void TestCliSeedFlags::paddleErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    const QString package = u"--package-path=quick_start"_s;
    const QString image = u"--base-image=img"_s;
    const QString entry = u"--entry-point=python train.py"_s;
    QTest::newRow("no package") << QStringList{image, entry} << u"package-path"_s
                                << u"--package-path=DIR is missing"_s;
    QTest::newRow("no image") << QStringList{package, entry} << u"base-image"_s
                              << u"--base-image=IMAGE is missing"_s;
    QTest::newRow("missing folder") << QStringList{u"--package-path=nope"_s, image, entry}
                                    << u"package-path"_s << u"there is no such folder"_s;
    QTest::newRow("neither entry nor module")
        << QStringList{package, image} << u"entry-point"_s << u"either --entry-point"_s;
    QTest::newRow("both") << QStringList{package, image, entry, u"--module=train"_s}
                          << u"entry-point"_s << u"(not both)"_s;
    QTest::newRow("no such module")
        << QStringList{package, image, u"--module=trian"_s} << u"module"_s << u"has no trian.py"_s;
    QTest::newRow("trainers 0") << QStringList{package, image, entry, u"--trainers=0"_s}
                                << u"trainers"_s << u"--trainers=0 is not valid"_s;
    QTest::newRow("pservers text") << QStringList{package, image, entry, u"--pservers=two"_s}
                                   << u"pservers"_s << u"expected a whole number, 0 or more"_s;
    QTest::newRow("gpu disagrees")
        << QStringList{package, image, entry, u"--use-gpu=false"_s, u"--trainer-gpu=1"_s}
        << u"trainer-gpu"_s << u"disagree"_s;
    QTest::newRow("two gpu spellings")
        << QStringList{package, image, entry, u"--trainer-gpu=1"_s, u"--gpu-num=1"_s}
        << u"gpu-num"_s << u"both set the trainers' GPUs"_s;
    QTest::newRow("env without =") << QStringList{package, image, entry, u"--env=NUM_PASS"_s}
                                   << u"env"_s << u"expected KEY=VALUE"_s;
    QTest::newRow("env twice") << QStringList{package, image, entry, u"--env=A=1"_s, u"--env=A=2"_s}
                               << u"env"_s << u"sets A twice"_s;
    QTest::newRow("memory too small")
        << QStringList{package, image, entry, u"--trainer-mem=50Mi"_s} << u"trainer-mem"_s
        << u"--trainer-mem: must be >= 100, got 50"_s;
    QTest::newRow("bad name") << QStringList{package, image, entry, u"--job-name=a b"_s}
                              << u"job-name"_s << u"--job-name: must match"_s;
    QTest::newRow("no such data") << QStringList{package, image, entry, u"--input=./nope"_s}
                                  << u"input"_s << u"expected a folder"_s;
}

void TestCliSeedFlags::paddleErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    const Result<SeedSubmission> read = paddle(arguments);
    QVERIFY(!read);
    QCOMPARE(read.error().field, field);
    QVERIFY2(read.error().message.contains(expected), qPrintable(read.error().message));
}

void TestCliSeedFlags::elasticDlParameterServers()
{
    const Result<SeedSubmission> read =
        elasticDl(ElasticDlJob::Mode::Train,
                  {u"--image_name=elasticdl:mnist"_s,
                   u"--model_zoo=zoo"_s,
                   u"--model_def=mnist.model.train"_s,
                   u"--training_data=data"_s,
                   u"--num_epochs=2"_s,
                   u"--minibatch_size=64"_s,
                   u"--num_workers=3"_s,
                   u"--num_ps_pods=2"_s,
                   u"--master_resource_request=cpu=400m,memory=1024Mi"_s,
                   u"--worker_resource_request=cpu=2,memory=1Gi,gpu=1"_s,
                   u"--ps_resource_limit=cpu=1,memory=512Mi"_s,
                   u"--job_name=mnist-train"_s,
                   u"--envs=A=1,B=2"_s,
                   u"--image_pull_policy=Never"_s,
                   u"--model_params=hidden=16;lr=0.1"_s,
                   u"--grads_to_wait=2"_s});
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
    const JobSpec &spec = read->spec;
    QCOMPARE(spec.kind, JobSpec::Kind::Ddl);
    QCOMPARE(spec.jobName, u"mnist-train"_s);
    QCOMPARE(spec.image, u"elasticdl:mnist"_s);
    QCOMPARE(read->packageFolder, QDir(m_dir.path()).canonicalPath() + u"/zoo"_s);
    QCOMPARE(spec.jobEnvs.value(u"DDL_ENTRY_POINT"_s).toString(), u"mnist.model.train"_s);
    QCOMPARE(spec.jobEnvs.value(u"ELASTICDL_NUM_EPOCHS"_s).toString(), u"2"_s);
    QCOMPARE(spec.jobEnvs.value(u"ELASTICDL_MINIBATCH_SIZE"_s).toString(), u"64"_s);
    QCOMPARE(spec.jobEnvs.value(u"ELASTICDL_JOB_TYPE"_s).toString(), u"training_only"_s);
    QCOMPARE(spec.jobEnvs.value(u"ELASTICDL_MODEL_PARAMS"_s).toString(), u"hidden=16;lr=0.1"_s);
    QCOMPARE(spec.jobEnvs.value(u"ELASTICDL_GRADS_TO_WAIT"_s).toString(), u"2"_s);
    QCOMPARE(spec.jobEnvs.value(u"A"_s).toString(), u"1"_s);
    QCOMPARE(spec.jobEnvs.value(u"B"_s).toString(), u"2"_s);
    QCOMPARE(spec.taskRoles.size(), 2);
    QCOMPARE(spec.taskRoles.at(0).name, u"ps"_s);
    QCOMPARE(spec.taskRoles.at(0).taskNumber, 2);
    QCOMPARE(spec.taskRoles.at(0).cpuNumber, 1); // the limit alone is booked
    QCOMPARE(spec.taskRoles.at(0).memoryMB, 512);
    QCOMPARE(spec.taskRoles.at(1).name, u"worker"_s);
    QCOMPARE(spec.taskRoles.at(1).taskNumber, 3);
    QCOMPARE(spec.taskRoles.at(1).cpuNumber, 2);
    QCOMPARE(spec.taskRoles.at(1).memoryMB, 1024);
    QCOMPARE(spec.taskRoles.at(1).gpuNumber, 1);
    const QString notes = read->notes.join(u'\n');
    QVERIFY2(notes.contains(u"no master task runs here"_s), qPrintable(notes));
    QVERIFY2(notes.contains(u"--image_pull_policy: accepted, but has no effect"_s),
             qPrintable(notes));
}

void TestCliSeedFlags::elasticDlAllreduceAndValidation()
{
    const Result<SeedSubmission> read = elasticDl(ElasticDlJob::Mode::Train,
                                                  {u"--model_zoo=zoo"_s,
                                                   u"--model_def=mnist.model.train"_s,
                                                   u"--training_data=data"_s,
                                                   u"--validation_data=data/validation"_s,
                                                   u"--num_workers=2"_s,
                                                   u"--distribution_strategy=AllreduceStrategy"_s});
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
    QCOMPARE(read->spec.taskRoles.size(), 1);
    QCOMPARE(read->spec.taskRoles.first().name, u"worker"_s);
    QCOMPARE(read->spec.taskRoles.first().taskNumber, 2);
    QCOMPARE(read->spec.jobName, u"zoo"_s);
    QCOMPARE(read->spec.jobEnvs.value(u"ELASTICDL_VALIDATION_DATA"_s).toString(), u"validation"_s);
    QCOMPARE(read->spec.jobEnvs.value(u"ELASTICDL_JOB_TYPE"_s).toString(),
             u"training_with_evaluation"_s);

    // predict reads --prediction_data; a name is a dataset on the server.
    const Result<SeedSubmission> predict = elasticDl(ElasticDlJob::Mode::Predict,
                                                     {u"--model_zoo=zoo"_s,
                                                      u"--model_def=mnist.model.train"_s,
                                                      u"--prediction_data=ddl://mnist-test"_s,
                                                      u"--distribution_strategy=Local"_s});
    QVERIFY2(predict, qPrintable(predict ? QString() : predict.error().message));
    QCOMPARE(predict->datasetName, u"mnist-test"_s);
    QCOMPARE(predict->spec.jobEnvs.value(u"ELASTICDL_JOB_TYPE"_s).toString(), u"prediction_only"_s);
}

void TestCliSeedFlags::elasticDlErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    const QString zoo = u"--model_zoo=zoo"_s;
    const QString def = u"--model_def=mnist.model.train"_s;
    const QString data = u"--training_data=data"_s;
    QTest::newRow("no model_def") << QStringList{zoo, data} << u"model_def"_s
                                  << u"--model_def=MODULE.FUNCTION is missing"_s;
    QTest::newRow("model_def without function") << QStringList{zoo, data, u"--model_def=train"_s}
                                                << u"model_def"_s << u"expected MODULE.FUNCTION"_s;
    QTest::newRow("no such module") << QStringList{zoo, data, u"--model_def=mnist.other.train"_s}
                                    << u"model_def"_s << u"has no mnist/other.py"_s;
    QTest::newRow("no such function")
        << QStringList{zoo, data, u"--model_def=mnist.model.evaluate"_s} << u"model_def"_s
        << u"defines no function evaluate"_s;
    QTest::newRow("no data") << QStringList{zoo, def} << u"training_data"_s
                             << u"--training_data=DIR|NAME is missing"_s;
    QTest::newRow("strategy")
        << QStringList{zoo, def, data, u"--distribution_strategy=Mirrored"_s}
        << u"distribution_strategy"_s
        << u"expected one of ParameterServerStrategy, AllreduceStrategy, Local"_s;
    QTest::newRow("ps with allreduce")
        << QStringList{zoo,
                       def,
                       data,
                       u"--distribution_strategy=AllreduceStrategy"_s,
                       u"--num_ps_pods=1"_s}
        << u"num_ps_pods"_s << u"AllreduceStrategy has no parameter servers"_s;
    QTest::newRow("request over limit")
        << QStringList{zoo,
                       def,
                       data,
                       u"--worker_resource_request=memory=2Gi"_s,
                       u"--worker_resource_limit=memory=1Gi"_s}
        << u"worker_resource_limit"_s << u"asks for memory=2048Mi, more than"_s;
    QTest::newRow("bad resource") << QStringList{zoo, def, data, u"--ps_resource_request=cpu=x"_s}
                                  << u"ps_resource_request"_s << u"'x' is not valid"_s;
    QTest::newRow("validation elsewhere")
        << QStringList{zoo, def, data, u"--validation_data=elsewhere"_s} << u"validation_data"_s
        << u"inside the --training_data folder"_s;
    QTest::newRow("envs") << QStringList{zoo, def, data, u"--envs=A=1,,B=2"_s} << u"envs"_s
                          << u"expected KEY=VALUE"_s;
    QTest::newRow("envs over ours") << QStringList{zoo, def, data, u"--envs=DDL_ENTRY_POINT=x.y"_s}
                                    << u"envs"_s << u"which the other flags set"_s;
    QTest::newRow("local with workers")
        << QStringList{zoo, def, data, u"--distribution_strategy=Local"_s, u"--num_workers=2"_s}
        << u"num_workers"_s << u"a local job has one worker"_s;
}

void TestCliSeedFlags::elasticDlErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    const Result<SeedSubmission> read = elasticDl(ElasticDlJob::Mode::Train, arguments);
    QVERIFY(!read);
    QCOMPARE(read.error().field, field);
    QVERIFY2(read.error().message.contains(expected), qPrintable(read.error().message));
}

void TestCliSeedFlags::paddleConfigForms()
{
    // The client design's form, as its README shows it.
    Result<PaddleConfig> config =
        PaddleConfig::parse("apiVersion: v1\n"
                            "dockerRegistry:\n"
                            "  domain: domain.com //default is docker.io\n"
                            "  username: reg\n"
                            "  password: secret\n"
                            "paddleServer: https://ddl.example.org:8443\n"
                            "username: ada@example.org\n",
                            u"/home/ada/.paddle/config"_s);
    QVERIFY2(config, qPrintable(config ? QString() : config.error().message));
    QCOMPARE(config->server, u"https://ddl.example.org:8443"_s);
    QCOMPARE(config->username, u"ada@example.org"_s);
    QCOMPARE(config->notes.size(), 1); // dockerRegistry; its password is the registry's
    QVERIFY(config->notes.first().contains(u"dockerRegistry"_s));

    // paddlecloud's datacenters.
    config = PaddleConfig::parse("datacenters:\n"
                                 "- name: production\n"
                                 "  username: ada@example.org\n"
                                 "  password: paddlecloud\n"
                                 "  endpoint: https://prod.example.org:8443\n"
                                 "- name: experimentation\n"
                                 "  username: bob@example.org\n"
                                 "  endpoint: https://exp.example.org:8443\n"
                                 "current-datacenter: experimentation\n",
                                 u"config"_s);
    QVERIFY2(config, qPrintable(config ? QString() : config.error().message));
    QCOMPARE(config->server, u"https://exp.example.org:8443"_s);
    QCOMPARE(config->username, u"bob@example.org"_s);
    QVERIFY(config->notes.isEmpty()); // the password was production's

    config = PaddleConfig::parse("", u"config"_s);
    QVERIFY(config);
    QVERIFY(config->server.isEmpty());
}

void TestCliSeedFlags::paddleConfigErrors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("expected");
    QTest::newRow("http") << QByteArray("paddleServer: http://ddl:8080\n")
                          << u"paddleServer is http://ddl:8080, but DDL servers speak HTTPS only; "
                             "write https://ddl:8080"_s;
    QTest::newRow("apiVersion") << QByteArray("apiVersion: v2\n") << u"apiVersion is 'v2'"_s;
    QTest::newRow("not yaml") << QByteArray("a: [1\n") << u"not YAML (line"_s;
    QTest::newRow("two servers") << QByteArray("paddleServer: https://a:1\nserver: https://b:2\n")
                                 << u"paddleServer and server name different servers"_s;
    QTest::newRow("no current datacenter")
        << QByteArray("datacenters:\n- name: a\n  endpoint: https://a:1\n- name: b\n"
                      "  endpoint: https://b:1\ncurrent-datacenter: c\n")
        << u"current-datacenter is c, but datacenters has only a, b"_s;
}

void TestCliSeedFlags::paddleConfigErrors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, expected);
    const Result<PaddleConfig> config = PaddleConfig::parse(yaml, u"/h/.paddle/config"_s);
    QVERIFY(!config);
    QVERIFY(config.error().is(ErrorCode::InvalidConfig));
    QVERIFY2(config.error().message.startsWith(u"/h/.paddle/config: "_s),
             qPrintable(config.error().message));
    QVERIFY2(config.error().message.contains(expected), qPrintable(config.error().message));
}

void TestCliSeedFlags::programNames()
{
    QCOMPARE(CliApplication::programFor(u"/usr/bin/paddle"_s), u"paddle"_s);
    QCOMPARE(CliApplication::programFor(u"elasticdl"_s), u"elasticdl"_s);
    QCOMPARE(CliApplication::programFor(u"./build/bin/ddlcli"_s), u"ddlcli"_s);
    QCOMPARE(CliApplication::programFor(u"paddle2"_s), u"ddlcli"_s);
}

void TestCliSeedFlags::commandLineErrors_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("error");
    const QByteArray none;
    QTest::newRow("ddlcli job submit")
        << u"ddlcli"_s << QStringList{u"job"_s, u"submit"_s, u"--base-image=i"_s} << none
        << u"ddlcli: error: --package-path=DIR is missing: the folder with the trainer's code\n"_s;
    // The Paddle client's older words: paddle train is job submit.
    QTest::newRow("paddle train")
        << u"paddle"_s << QStringList{u"train"_s, u"--package-path=quick_start"_s} << none
        << u"paddle: error: --base-image=IMAGE is missing: the image the trainers run in (on "
           "workers without a container runtime the tasks run in the worker's sandbox, and the "
           "image is only recorded)\n"_s;
    QTest::newRow("use-gpu with a separate value")
        << u"paddle"_s
        << QStringList{u"job"_s,
                       u"submit"_s,
                       u"--package-path=quick_start"_s,
                       u"--use-gpu"_s,
                       u"true"_s}
        << none
        << u"paddle: error: unexpected argument 'true': job submit takes no NAME (give it with "
           "--job-name), and --use-gpu takes its value after '=' (--use-gpu=true); run ddlcli "
           "job --help\n"_s;
    QTest::newRow("submit flag on list")
        << u"paddle"_s << QStringList{u"job"_s, u"list"_s, u"--trainers=2"_s} << none
        << u"paddle: error: --trainers belongs to job submit, not to job list; run ddlcli job "
           "--help\n"_s;
    QTest::newRow("unknown action")
        << u"paddle"_s << QStringList{u"job"_s, u"frobnicate"_s} << none
        << u"paddle: error: unknown job action 'frobnicate'; the actions are submit, list, "
           "status, logs, kill, delete; run ddlcli job --help\n"_s;
    QTest::newRow("status without name")
        << u"paddle"_s << QStringList{u"job"_s, u"status"_s} << none
        << u"paddle: error: job status needs the job's NAME (or uuid); run ddlcli job --help\n"_s;
    QTest::newRow("config with http")
        << u"paddle"_s << QStringList{u"job"_s, u"list"_s}
        << QByteArray("apiVersion: v1\npaddleServer: http://cloud:8080\n")
        << u"paddle: error: CONFIG: paddleServer is http://cloud:8080, but DDL servers speak "
           "HTTPS only; write https://cloud:8080\n"_s;
    QTest::newRow("elasticdl unknown strategy")
        << u"elasticdl"_s
        << QStringList{u"train"_s,
                       u"--model_zoo=zoo"_s,
                       u"--model_def=mnist.model.train"_s,
                       u"--training_data=data"_s,
                       u"--distribution_strategy=Horovod"_s}
        << none
        << u"elasticdl: error: --distribution_strategy=Horovod is not valid: expected one of "
           "ParameterServerStrategy, AllreduceStrategy, Local\n"_s;
}

void TestCliSeedFlags::commandLineErrors()
{
    QFETCH(QString, program);
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, config);
    QFETCH(QString, error);
    QTemporaryDir configDir;
    const QString configPath = configDir.filePath(u"paddle-config"_s);
    if (!config.isEmpty())
        write(configPath, config);
    QBuffer in;
    QBuffer out;
    QBuffer err;
    in.open(QIODevice::ReadOnly);
    out.open(QIODevice::WriteOnly);
    err.open(QIODevice::WriteOnly);
    Console console(&in, &out, &err);
    CliApplication cli(console, configDir.path(), program);
    cli.setPaddleConfigPath(configPath);
    // Relative paths start where the command runs.
    const QString before = QDir::currentPath();
    QDir::setCurrent(m_dir.path());
    const int exitCode = cli.run(arguments);
    QDir::setCurrent(before);
    QCOMPARE(QString::fromUtf8(err.data()), QString(error).replace(u"CONFIG"_s, configPath));
    QCOMPARE(exitCode, error.contains(u"http://"_s) ? 1 : 2);
    QVERIFY(out.data().isEmpty());
}

QTEST_GUILESS_MAIN(TestCliSeedFlags)
#include "tst_cli_seedflags.moc"
