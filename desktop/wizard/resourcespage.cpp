#include "resourcespage.h"

#include "wizard/submitwizard.h"

#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

static QSpinBox *spin(int min, int max, QWidget *parent, const QString &suffix = {})
{
    auto *box = new QSpinBox(parent);
    box->setRange(min, max);
    box->setSuffix(suffix);
    return box;
}

ResourcesPage::ResourcesPage(QWidget *parent)
    : QWizardPage(parent)
{
    m_kind = new QComboBox(this);
    m_kind->setObjectName(u"wizardKind"_s);
    m_kind->addItem(QString(), int(JobSpec::Kind::Ddl));
    m_kind->addItem(QString(), int(JobSpec::Kind::OpenPai));
    m_command = new QLineEdit(this);
    m_command->setObjectName(u"wizardCommand"_s);
    m_problem = new QLabel(this);
    m_problem->setObjectName(u"resourcesProblem"_s);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(u"color: #cf222e"_s);
    m_name = new QLineEdit(this);
    m_name->setObjectName(u"wizardJobName"_s);
    m_workers = spin(1, 1000, this);
    m_workers->setObjectName(u"wizardWorkers"_s);
    m_gpus = spin(0, 64, this);
    m_cpus = spin(1, 256, this);
    m_memory = spin(100, 1024 * 1024, this);
    m_memory->setSingleStep(512);
    m_retries = spin(0, 100, this);
    m_form = new QFormLayout(this);
    const QList<QWidget *> fields{m_kind, m_command, m_name,   m_workers,
                                  m_gpus, m_cpus,    m_memory, m_retries};
    for (QWidget *field : fields)
        m_form->addRow(new QLabel(this), field);
    m_form->addRow(m_problem);
    retranslateUi();
    registerField(u"kind"_s, m_kind, "currentData", SIGNAL(currentIndexChanged(int)));
    registerField(u"command"_s, m_command);
    registerField(u"jobName*"_s, m_name);
    registerField(u"workers"_s, m_workers);
    registerField(u"gpus"_s, m_gpus);
    registerField(u"cpus"_s, m_cpus);
    registerField(u"memory"_s, m_memory);
    registerField(u"retries"_s, m_retries);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ResourcesPage::showKind);
}

void ResourcesPage::showKind()
{
    const bool command = m_kind->currentData().toInt() == int(JobSpec::Kind::OpenPai);
    m_command->setEnabled(command);
    m_command->setPlaceholderText(command ? tr("for example: python3 train.py --epochs 10")
                                          : tr("not used: DDL calls main(dataset_dir, "
                                               "model_output_dir) in main.py"));
    m_problem->clear();
}

void ResourcesPage::retranslateUi()
{
    setTitle(tr("Resources"));
    setSubTitle(tr("What each task gets. The job starts when all its tasks fit at once."));
    m_memory->setSuffix(tr(" MB"));
    m_kind->setItemText(0, tr("DDL project: main() in main.py"));
    m_kind->setItemText(1, tr("Command (as OpenPAI runs it)"));
    showKind();
    const QList<QPair<QWidget *, QString>> labels{{m_kind, tr("Runs:")},
                                                  {m_command, tr("Command:")},
                                                  {m_name, tr("Job name:")},
                                                  {m_workers, tr("Tasks (workers):")},
                                                  {m_gpus, tr("GPUs per task:")},
                                                  {m_cpus, tr("CPUs per task:")},
                                                  {m_memory, tr("Memory per task:")},
                                                  {m_retries, tr("Retries:")}};
    for (const auto &[field, text] : labels) {
        if (auto *label = qobject_cast<QLabel *>(m_form->labelForField(field)))
            label->setText(text);
    }
}

void ResourcesPage::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

void ResourcesPage::initializePage()
{
    auto *submit = static_cast<SubmitWizard *>(wizard());
    if (m_shownGeneration == submit->specGeneration())
        return; // keep what the person set when they come back to the same job
    m_shownGeneration = submit->specGeneration();
    const JobSpec &spec = submit->spec();
    m_kind->setCurrentIndex(m_kind->findData(int(spec.kind)));
    QString name = spec.jobName;
    const QString folder = field(u"folder"_s).toString();
    if ((name.isEmpty() || name == u"my-model"_s) && !folder.isEmpty())
        name = QFileInfo(folder).fileName();
    m_name->setText(name);
    const TaskRole role = spec.taskRoles.isEmpty() ? TaskRole() : spec.taskRoles.first();
    m_workers->setValue(role.taskNumber);
    m_gpus->setValue(role.gpuNumber);
    m_cpus->setValue(role.cpuNumber);
    m_memory->setValue(role.memoryMB);
    m_retries->setValue(spec.retryCount);
    m_command->setText(role.command);
    showKind();
}

bool ResourcesPage::validatePage()
{
    const bool ddl = m_kind->currentData().toInt() == int(JobSpec::Kind::Ddl);
    if (ddl && field(u"folder"_s).toString().isEmpty()) {
        m_problem->setText(tr("A DDL project needs its folder: go back to the first page and "
                              "choose it, or run a command instead."));
        return false;
    }
    if (!ddl && m_command->text().trimmed().isEmpty()) {
        m_problem->setText(tr("Write the command each task runs, or choose a DDL project."));
        return false;
    }
    return true;
}

} // namespace ddl::desktop
