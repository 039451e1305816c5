#include "resourcespage.h"

#include "wizard/submitwizard.h"

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
    m_name = new QLineEdit(this);
    m_name->setObjectName(u"wizardJobName"_s);
    m_workers = spin(1, 1000, this);
    m_gpus = spin(0, 64, this);
    m_cpus = spin(1, 256, this);
    m_memory = spin(100, 1024 * 1024, this);
    m_memory->setSingleStep(512);
    m_retries = spin(0, 100, this);
    m_form = new QFormLayout(this);
    const QList<QWidget *> fields{m_name, m_workers, m_gpus, m_cpus, m_memory, m_retries};
    for (QWidget *field : fields)
        m_form->addRow(new QLabel(this), field);
    retranslateUi();
    registerField(u"jobName*"_s, m_name);
    registerField(u"workers"_s, m_workers);
    registerField(u"gpus"_s, m_gpus);
    registerField(u"cpus"_s, m_cpus);
    registerField(u"memory"_s, m_memory);
    registerField(u"retries"_s, m_retries);
}

void ResourcesPage::retranslateUi()
{
    setTitle(tr("Resources"));
    setSubTitle(tr("What each task gets. The job starts when all its tasks fit at once."));
    m_memory->setSuffix(tr(" MB"));
    const QList<QPair<QWidget *, QString>> labels{{m_name, tr("Job name:")},
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
    if (m_initialised)
        return; // keep what the person set when they come back
    m_initialised = true;
    const JobSpec &spec = static_cast<SubmitWizard *>(wizard())->spec();
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
}

} // namespace ddl::desktop
