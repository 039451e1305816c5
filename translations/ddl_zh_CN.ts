<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ErrorText</name>
    <message>
        <source>Cannot reach the server. Check the address and that ddl-server is running.
(%1)</source>
        <translation>无法连接服务器。请检查地址以及 ddl-server 是否正在运行。
(%1)</translation>
    </message>
    <message>
        <source>The server did not answer in time. Check your network and try again.</source>
        <translation>服务器未及时响应。请检查网络后重试。</translation>
    </message>
    <message>
        <source>Your session has expired. Log in again.</source>
        <translation>会话已过期，请重新登录。</translation>
    </message>
    <message>
        <source>The server presented a different certificate than the one you trusted. If it was replaced on purpose, remove the pin in the connection settings; otherwise do not connect.</source>
        <translation>服务器出示的证书与您信任的证书不同。如果证书是有意更换的，请在连接设置中移除固定的指纹；否则请不要连接。</translation>
    </message>
    <message>
        <source>The server&apos;s certificate is not trusted. Pin its fingerprint or choose its CA file.</source>
        <translation>服务器证书不受信任。请固定其指纹或选择其 CA 文件。</translation>
    </message>
    <message>
        <source>Too many attempts: %1</source>
        <translation>尝试次数过多：%1</translation>
    </message>
    <message>
        <source>Conflict: %1</source>
        <translation>冲突：%1</translation>
    </message>
    <message>
        <source>The request failed (%1).</source>
        <translation>请求失败（%1）。</translation>
    </message>
    <message>
        <source>Wrong email or password.</source>
        <translation>邮箱或密码错误。</translation>
    </message>
</context>
<context>
    <name>FolderDrop</name>
    <message>
        <source>Drop a folder from the file manager here.</source>
        <translation>请从文件管理器把一个文件夹拖到这里。</translation>
    </message>
    <message numerus="yes">
        <source>Drop one folder at a time (%n items were dropped).</source>
        <translation>
            <numerusform>一次只能拖入一个文件夹（拖入了 %n 项）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Only a folder on this computer can be dropped here.</source>
        <translation>这里只能拖入本机上的文件夹。</translation>
    </message>
    <message>
        <source>%1 is not a folder. Drop the folder that holds it.</source>
        <translation>%1 不是文件夹。请拖入包含它的文件夹。</translation>
    </message>
</context>
<context>
    <name>GitCheck</name>
    <message>
        <source>%1 is not in a git repository. DDL packages the code of the last commit: run git init, add and commit your code, then check again.</source>
        <translation>%1 不在 git 仓库中。DDL 打包的是最后一次提交的代码：请运行 git init，添加并提交代码，然后重新检查。</translation>
    </message>
</context>
<context>
    <name>JobStateStyle</name>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation>已成功</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>已失败</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
</context>
<context>
    <name>JobTemplates</name>
    <message>
        <source>Hello world (a shell command)</source>
        <translation>Hello world（一条 shell 命令）</translation>
    </message>
    <message>
        <source>DDL training (main.py of your repository)</source>
        <translation>DDL 训练（仓库中的 main.py）</translation>
    </message>
    <message>
        <source>Parameter server and workers</source>
        <translation>参数服务器与工作节点</translation>
    </message>
</context>
<context>
    <name>StopConfirmation</name>
    <message numerus="yes">
        <source> and %n more</source>
        <translation>
            <numerusform>，另有 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)?</source>
        <translation>
            <numerusform>停止 %n 个作业？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)? %1</source>
        <translation>
            <numerusform>停止 %n 个作业？%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Running tasks are killed and the job ends as Stopped; its outputs so far are kept. This cannot be undone.</source>
        <translation>正在运行的任务将被终止，作业以“已停止”结束；已有的输出会保留。此操作无法撤销。</translation>
    </message>
    <message numerus="yes">
        <source>Stop job(s)</source>
        <translation>
            <numerusform>停止作业</numerusform>
        </translation>
    </message>
    <message>
        <source>Keep running</source>
        <translation>继续运行</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ArtifactBrowser</name>
    <message>
        <source>Select a file to preview it.</source>
        <translation>选择一个文件进行预览。</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Download selected…</source>
        <translation>下载所选…</translation>
    </message>
    <message>
        <source>Download all…</source>
        <translation>全部下载…</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>The job has no outputs (yet). Files written to model_output_dir appear here when it ends.</source>
        <translation>该作业（暂时）没有输出。写入 model_output_dir 的文件会在作业结束后显示在这里。</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is a binary file; download it to open it.</source>
        <translation>%1 是二进制文件，请下载后打开。</translation>
    </message>
    <message>
        <source>(only the first %1 KiB are shown)</source>
        <translation>（仅显示前 %1 KiB）</translation>
    </message>
    <message>
        <source>Select the files to download first.</source>
        <translation>请先选择要下载的文件。</translation>
    </message>
    <message>
        <source>Download to</source>
        <translation>下载到</translation>
    </message>
    <message>
        <source>Downloading…</source>
        <translation>正在下载…</translation>
    </message>
    <message numerus="yes">
        <source>Downloaded %n file(s) to %1</source>
        <translation>
            <numerusform>已下载 %n 个文件到 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not download: %1</source>
        <translation>无法下载：%1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ArtifactModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ConnectPage</name>
    <message>
        <source>&lt;h2&gt;Connect to a DDL server&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;连接到 DDL 服务器&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>https://host:8443</source>
        <translation>https://host:8443</translation>
    </message>
    <message>
        <source>optional: the server&apos;s certificate or CA file</source>
        <translation>可选：服务器证书或 CA 文件</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA 证书</translation>
    </message>
    <message>
        <source>Certificates (*.crt *.pem)</source>
        <translation>证书 (*.crt *.pem)</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>CA file:</source>
        <translation>CA 文件：</translation>
    </message>
    <message>
        <source>First connection to this server</source>
        <translation>首次连接此服务器</translation>
    </message>
    <message>
        <source>Trust this certificate</source>
        <translation>信任此证书</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <source>Register</source>
        <translation>注册</translation>
    </message>
    <message>
        <source>Email:</source>
        <translation>邮箱：</translation>
    </message>
    <message>
        <source>Password:</source>
        <translation>密码：</translation>
    </message>
    <message>
        <source>Logging in…</source>
        <translation>正在登录…</translation>
    </message>
    <message>
        <source>Choose a password of at least 8 characters.</source>
        <translation>请选择至少 8 个字符的密码。</translation>
    </message>
    <message>
        <source>Creating the account…</source>
        <translation>正在创建账户…</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>The server presents a certificate no one vouches for yet. Compare its fingerprint with the one the server printed at start (ddl-server logs it) before you trust it:

%1</source>
        <translation>服务器出示的证书尚无人担保。在信任之前，请将其指纹与服务器启动时打印的指纹（ddl-server 会记录在日志中）进行比对：

%1</translation>
    </message>
    <message>
        <source>Connected to %1.</source>
        <translation>已连接到 %1。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Uploaded</source>
        <translation>上传时间</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetPage</name>
    <message>
        <source>Dataset folder</source>
        <translation>数据集文件夹</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>The folder your main() reads as dataset_dir. Leave it empty for none.</source>
        <translation>main() 作为 dataset_dir 读取的文件夹。留空表示不使用数据集。</translation>
    </message>
    <message>
        <source>Dataset folder:</source>
        <translation>数据集文件夹：</translation>
    </message>
    <message>
        <source>No dataset.</source>
        <translation>无数据集。</translation>
    </message>
    <message>
        <source>%1 is not a folder.</source>
        <translation>%1 不是文件夹。</translation>
    </message>
    <message>
        <source>Counting…</source>
        <translation>正在统计…</translation>
    </message>
    <message>
        <source>A folder on this computer</source>
        <translation>本机上的文件夹</translation>
    </message>
    <message>
        <source>Use:</source>
        <translation>使用：</translation>
    </message>
    <message numerus="yes">
        <source>%1 on the server (%n file(s), %2)</source>
        <translation>
            <numerusform>服务器上的 %1（%n 个文件，%2）</numerusform>
        </translation>
    </message>
    <message>
        <source>The server has this dataset already: nothing is uploaded.</source>
        <translation>服务器上已有此数据集：无需上传。</translation>
    </message>
    <message>
        <source>Asking the server which files it has…</source>
        <translation>正在询问服务器已有哪些文件…</translation>
    </message>
    <message numerus="yes">
        <source>To upload: %1 (%2 of %n file(s)); the server has the rest.</source>
        <translation>
            <numerusform>需要上传：%1（%n 个文件中的 %2 个）；其余文件服务器已有。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s), %1.</source>
        <translation>
            <numerusform>%n 个文件，%1。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetsView</name>
    <message>
        <source>Datasets</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>File being sent</source>
        <translation>正在发送的文件</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Drop a folder here to upload it as a dataset.</source>
        <translation>将文件夹拖到这里即可作为数据集上传。</translation>
    </message>
    <message>
        <source>Upload folder…</source>
        <translation>上传文件夹…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Dataset folder</source>
        <translation>数据集文件夹</translation>
    </message>
    <message>
        <source>Delete dataset</source>
        <translation>删除数据集</translation>
    </message>
    <message>
        <source>Delete the dataset %1? Jobs that used it keep their data.</source>
        <translation>删除数据集 %1？使用过它的作业会保留其数据。</translation>
    </message>
    <message>
        <source>Wait for the current upload to finish.</source>
        <translation>请等待当前上传完成。</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>The server has every file already.</source>
        <translation>服务器已拥有所有文件。</translation>
    </message>
    <message numerus="yes">
        <source>Sending %n file(s) the server does not have…</source>
        <translation>
            <numerusform>正在发送服务器缺少的 %n 个文件…</numerusform>
        </translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>Deleted %1.</source>
        <translation>已删除 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Dataset %1: %n file(s), %2 sent.</source>
        <translation>
            <numerusform>数据集 %1：%n 个文件，已发送 %2 个。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::FailureSummary</name>
    <message>
        <source>Exit code 127: the command was not found. Check the command&apos;s spelling and that the image (or the worker&apos;s Python) has the program.</source>
        <translation>退出码 127：找不到命令。请检查命令拼写，以及镜像（或工作节点的 Python）中是否有该程序。</translation>
    </message>
    <message>
        <source>Exit code 126: the command is not executable. Check its file mode, or run it through its interpreter (python3 script.py).</source>
        <translation>退出码 126：命令不可执行。请检查文件权限，或通过解释器运行（python3 script.py）。</translation>
    </message>
    <message>
        <source>Exit code 137: the task was killed (SIGKILL), most often for using more memory than it asked for. Ask for more memory (memoryMB), or use less.</source>
        <translation>退出码 137：任务被终止（SIGKILL），通常是因为使用的内存超过了申请量。请申请更多内存（memoryMB）或减少用量。</translation>
    </message>
    <message>
        <source>Exit code 143: the task was terminated (SIGTERM): stopped, or over its time.</source>
        <translation>退出码 143：任务被终止（SIGTERM）：已停止或超时。</translation>
    </message>
    <message>
        <source>The task&apos;s last error lines are below; the whole log is in Logs (Stream: stderr).</source>
        <translation>下面是任务最后的错误输出；完整日志见“日志”（流：stderr）。</translation>
    </message>
    <message>
        <source>attempt %1 of %2</source>
        <translation>第 %1 次尝试，共 %2 次</translation>
    </message>
    <message>
        <source>&lt;b&gt;The job failed&lt;/b&gt; (%1). %2</source>
        <translation>&lt;b&gt;作业失败&lt;/b&gt;（%1）。%2</translation>
    </message>
    <message>
        <source>%1 #%2</source>
        <translation>%1 #%2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Task %1 failed with exit code %2&lt;/b&gt; on worker %3 (%4).</source>
        <translation>&lt;b&gt;任务 %1 失败，退出码 %2&lt;/b&gt;，工作节点 %3（%4）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Task %1 failed&lt;/b&gt; on worker %2 (%3).</source>
        <translation>&lt;b&gt;任务 %1 失败&lt;/b&gt;，工作节点 %2（%3）。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::FolderField</name>
    <message>
        <source>Drop a folder here or browse</source>
        <translation>将文件夹拖到这里或浏览</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::GitPage</name>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>DDL packages the last commit of the repository, never the files as they are on disk.</source>
        <translation>DDL 打包的是仓库的最后一次提交，而不是磁盘上的当前文件。</translation>
    </message>
    <message>
        <source>Largest files</source>
        <translation>最大的文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <source>Checking the repository and packaging a preview…</source>
        <translation>正在检查仓库并打包预览…</translation>
    </message>
    <message>
        <source>The working tree of %1 has changes that are not committed. Commit them, or put them aside with &lt;code&gt;git stash -u&lt;/code&gt;; files that should never be sent belong in .gitignore. Then press Check again.</source>
        <translation>%1 的工作区有未提交的更改。请提交它们，或用 &lt;code&gt;git stash -u&lt;/code&gt; 暂存；不应发送的文件请加入 .gitignore。然后点击“重新检查”。</translation>
    </message>
    <message numerus="yes">
        <source>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n file(s), %3 unpacked; the package is %4.</source>
        <translation>
            <numerusform>提交 &lt;b&gt;%1&lt;/b&gt;：%2&lt;br&gt;%n 个文件，解包后 %3；打包后 %4。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::HomeView</name>
    <message>
        <source>Home</source>
        <translation>首页</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>My jobs</source>
        <translation>我的作业</translation>
    </message>
    <message>
        <source>Waiting, and why</source>
        <translation>等待中及原因</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Why it waits</source>
        <translation>等待原因</translation>
    </message>
    <message>
        <source>Asking the server…</source>
        <translation>正在询问服务器…</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n worker(s) online. GPUs: %2 in use, %3 free, of %4.</source>
        <translation>
            <numerusform>%n 个工作节点中 %1 个在线。GPU：%2 个使用中，%3 个空闲，共 %4 个。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ImageModel</name>
    <message>
        <source>Image</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Pushed</source>
        <translation>推送时间</translation>
    </message>
    <message>
        <source>Digest</source>
        <translation>摘要</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ImagesView</name>
    <message>
        <source>Images</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>Remove image</source>
        <translation>删除镜像</translation>
    </message>
    <message>
        <source>Remove the image ddl://%1 from the server? Jobs that name it can no longer start.</source>
        <translation>要从服务器删除镜像 ddl://%1 吗？使用它的作业将无法再启动。</translation>
    </message>
    <message>
        <source>Push a local podman image to run jobs in it as ddl://NAME.</source>
        <translation>推送本地 podman 镜像，即可以 ddl://NAME 在其中运行作业。</translation>
    </message>
    <message>
        <source>Push image…</source>
        <translation>推送镜像…</translation>
    </message>
    <message>
        <source>Cancel push</source>
        <translation>取消推送</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Wait for the current push to finish.</source>
        <translation>请等待当前推送完成。</translation>
    </message>
    <message>
        <source>Saving %1 with podman…</source>
        <translation>正在用 podman 保存 %1…</translation>
    </message>
    <message>
        <source>Sending the layers of %1 (%2) the server does not have…</source>
        <translation>正在发送服务器尚无的 %1（%2）的镜像层…</translation>
    </message>
    <message>
        <source>Image ddl://%1 is on the server (%2); jobs can name it now.</source>
        <translation>镜像 ddl://%1 已在服务器上（%2）；作业现在可以使用它。</translation>
    </message>
    <message>
        <source>Removed ddl://%1.</source>
        <translation>已删除 ddl://%1。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobDetailView</name>
    <message>
        <source>Cancel job</source>
        <translation>取消作业</translation>
    </message>
    <message>
        <source>Clone into editor</source>
        <translation>克隆到编辑器</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Artifacts</source>
        <translation>产出文件</translation>
    </message>
    <message>
        <source>State: &lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/span&gt;</source>
        <translation>状态：&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Submitted %1</source>
        <translation>提交于 %1</translation>
    </message>
    <message>
        <source>started %1</source>
        <translation>开始于 %1</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>attempt %1 of %2</source>
        <translation>第 %1 次尝试，共 %2 次</translation>
    </message>
    <message>
        <source>Config</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>资源利用</translation>
    </message>
    <message>
        <source>Checkpoint of %1 #%2: from attempt %3 at %4, %5</source>
        <translation>%1 #%2 的检查点：来自第 %3 次尝试，%4，%5</translation>
    </message>
    <message numerus="yes">
        <source>attempt %1 (%n preempted)</source>
        <translation>
            <numerusform>第 %1 次尝试（%n 次被抢占）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobEditor</name>
    <message>
        <source>Editor</source>
        <translation>编辑器</translation>
    </message>
    <message>
        <source>Start from a template…</source>
        <translation>从模板开始…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Submit…</source>
        <translation>提交…</translation>
    </message>
    <message>
        <source>DDL (main.py of a repository)</source>
        <translation>DDL（仓库中的 main.py）</translation>
    </message>
    <message>
        <source>OpenPAI (commands)</source>
        <translation>OpenPAI（命令）</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <source>CPUs</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Memory (MB)</source>
        <translation>内存 (MB)</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Add role</source>
        <translation>添加角色</translation>
    </message>
    <message>
        <source>Remove role</source>
        <translation>移除角色</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>类型：</translation>
    </message>
    <message>
        <source>Job name:</source>
        <translation>作业名称：</translation>
    </message>
    <message>
        <source>Image:</source>
        <translation>镜像：</translation>
    </message>
    <message>
        <source>Retries:</source>
        <translation>重试次数：</translation>
    </message>
    <message>
        <source>Task roles:</source>
        <translation>任务角色：</translation>
    </message>
    <message>
        <source>Import a job</source>
        <translation>导入作业</translation>
    </message>
    <message>
        <source>Jobs (*.json *.yaml *.yml)</source>
        <translation>作业 (*.json *.yaml *.yml)</translation>
    </message>
    <message>
        <source>Export the job</source>
        <translation>导出作业</translation>
    </message>
    <message>
        <source>JSON (*.json);;DDL task.yaml (*.yaml)</source>
        <translation>JSON (*.json);;DDL task.yaml (*.yaml)</translation>
    </message>
    <message>
        <source>JSON syntax: %1</source>
        <translation>JSON 语法错误：%1</translation>
    </message>
    <message>
        <source>the job must be a JSON object { ... }</source>
        <translation>作业必须是一个 JSON 对象 { ... }</translation>
    </message>
    <message>
        <source>line %1: %2%3</source>
        <translation>第 %1 行：%2%3</translation>
    </message>
    <message>
        <source>The job is valid.</source>
        <translation>作业有效。</translation>
    </message>
    <message>
        <source>note: %1</source>
        <translation>注意：%1</translation>
    </message>
    <message>
        <source>%1 is not a valid task.yaml:
%2</source>
        <translation>%1 不是有效的 task.yaml：
%2</translation>
    </message>
    <message>
        <source>Imported %1</source>
        <translation>已导入 %1</translation>
    </message>
    <message>
        <source>Only a valid DDL job can be written as task.yaml.</source>
        <translation>只有有效的 DDL 作业才能写成 task.yaml。</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Could not write %1</source>
        <translation>无法写入 %1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobListModel</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation>提交时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobListView</name>
    <message>
        <source>All states</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <source>Filter by name or uuid</source>
        <translation>按名称或 uuid 筛选</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>New job…</source>
        <translation>新建作业…</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s)</source>
        <translation>
            <numerusform>%n 个作业</numerusform>
        </translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Clone into the editor</source>
        <translation>克隆到编辑器</translation>
    </message>
    <message>
        <source>Copy uuid</source>
        <translation>复制 uuid</translation>
    </message>
    <message>
        <source>Stop selected jobs</source>
        <translation>停止所选作业</translation>
    </message>
    <message>
        <source>No jobs yet. Click &quot;New job…&quot; to submit a project, or run &quot;ddlcli submit&quot; in the project&apos;s folder.</source>
        <translation>还没有作业。点击“新建作业…”提交项目，或在项目文件夹中运行“ddlcli submit”。</translation>
    </message>
    <message>
        <source>No job matches the filter.</source>
        <translation>没有符合筛选条件的作业。</translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)…</source>
        <translation>
            <numerusform>停止 %n 个作业…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobSubmission</name>
    <message>
        <source>Not connected to a server.</source>
        <translation>未连接到服务器。</translation>
    </message>
    <message>
        <source>Cannot create a temporary folder: %1</source>
        <translation>无法创建临时文件夹：%1</translation>
    </message>
    <message>
        <source>The repository has changes that are not committed. Commit them (or stash them), then submit again.
%1</source>
        <translation>仓库有未提交的更改。请提交（或暂存）后再提交作业。
%1</translation>
    </message>
    <message>
        <source>The server refused the job:
%1</source>
        <translation>服务器拒绝了该作业：
%1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobUtilisationView</name>
    <message>
        <source>This server keeps no utilisation samples (it is older than this client).</source>
        <translation>此服务器不保存资源利用采样（它比此客户端旧）。</translation>
    </message>
    <message>
        <source>No samples yet: the job waits for a worker.</source>
        <translation>尚无采样：作业正在等待工作节点。</translation>
    </message>
    <message>
        <source>No samples: the job&apos;s workers reported none while it ran.</source>
        <translation>无采样：作业运行期间其工作节点未报告任何采样。</translation>
    </message>
    <message>
        <source>No samples yet: workers report CPU, memory and GPU use every few seconds while tasks run.</source>
        <translation>尚无采样：任务运行时，工作节点每隔几秒报告 CPU、内存和 GPU 使用情况。</translation>
    </message>
    <message>
        <source>The worker reports no GPU readings for these tasks (no nvidia-smi, or GPUs declared with --gpus).</source>
        <translation>工作节点未报告这些任务的 GPU 读数（没有 nvidia-smi，或 GPU 通过 --gpus 声明）。</translation>
    </message>
    <message>
        <source>The tasks of this job use no GPU.</source>
        <translation>此作业的任务不使用 GPU。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::LedgerPanel</name>
    <message>
        <source>Select a worker to see what it gave.</source>
        <translation>选择一个工作节点以查看其贡献。</translation>
    </message>
    <message>
        <source>GPU-hours given: %1</source>
        <translation>贡献的 GPU 小时：%1</translation>
    </message>
    <message>
        <source>CPU-hours given: %1 (CPU time used: %2 h)</source>
        <translation>贡献的 CPU 小时：%1（实际使用 CPU 时间：%2 小时）</translation>
    </message>
    <message>
        <source>Tasks run: %1 (%2 succeeded, %3 failed)</source>
        <translation>运行的任务：%1（成功 %2，失败 %3）</translation>
    </message>
    <message>
        <source>Jobs run: %1</source>
        <translation>运行的作业：%1</translation>
    </message>
    <message>
        <source>Preemptions: %1</source>
        <translation>被抢占次数：%1</translation>
    </message>
    <message>
        <source>Downloaded: %1</source>
        <translation>已下载：%1</translation>
    </message>
    <message>
        <source>Uploaded: %1</source>
        <translation>已上传：%1</translation>
    </message>
    <message>
        <source>Only a worker&apos;s owner sees what it gave, and this worker is not yours.</source>
        <translation>只有工作节点的所有者才能查看其贡献，而此工作节点不属于您。</translation>
    </message>
    <message>
        <source>%1 gave:</source>
        <translation>%1 的贡献：</translation>
    </message>
    <message>
        <source>This server keeps no contribution ledger (it is older than this client).</source>
        <translation>此服务器没有贡献账本（它比此客户端旧）。</translation>
    </message>
    <message>
        <source>You own no workers. A worker is yours when it enrolled with a token made for you (ddl-server token create --owner).</source>
        <translation>您没有任何工作节点。工作节点使用为您创建的令牌注册后即归您所有（ddl-server token create --owner）。</translation>
    </message>
    <message numerus="yes">
        <source>Your %n worker(s) gave:</source>
        <translation>
            <numerusform>您的 %n 个工作节点的贡献：</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::LogView</name>
    <message>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
    <message>
        <source>Where in the whole log the shown part lies</source>
        <translation>显示部分在整个日志中的位置</translation>
    </message>
    <message>
        <source>Task:</source>
        <translation>任务：</translation>
    </message>
    <message>
        <source>%1–%2 of %3</source>
        <translation>%1–%2 / %3</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>stdout</source>
        <translation>标准输出</translation>
    </message>
    <message>
        <source>stderr</source>
        <translation>标准错误</translation>
    </message>
    <message>
        <source>Everything the task wrote, with the worker&apos;s own lines, or only its stdout or stderr</source>
        <translation>任务写出的全部内容（含工作节点自身的行），或仅其标准输出或标准错误</translation>
    </message>
    <message>
        <source>Stream:</source>
        <translation>输出流：</translation>
    </message>
    <message>
        <source>Search the whole log</source>
        <translation>在整个日志中搜索</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一个</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not in this log</source>
        <translation>此日志中没有“%1”</translation>
    </message>
    <message>
        <source>No earlier match</source>
        <translation>前面没有匹配项</translation>
    </message>
    <message>
        <source>No further match</source>
        <translation>后面没有匹配项</translation>
    </message>
    <message>
        <source>Search failed: %1</source>
        <translation>搜索失败：%1</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>Match at byte %1</source>
        <translation>匹配项位于第 %1 字节</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <source>%1 of more than %2</source>
        <translation>第 %1 个，共超过 %2 个</translation>
    </message>
    <message>
        <source>%1 of %2 in the first %3 of the log</source>
        <translation>第 %1 个，日志前 %3 中共 %2 个</translation>
    </message>
    <message>
        <source>%1 of %2 so far, counting…</source>
        <translation>第 %1 个，目前共 %2 个，仍在计数…</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::MainWindow</name>
    <message>
        <source>DDL</source>
        <translation>DDL</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Job %1 ended</source>
        <translation>作业 %1 已结束</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New job…</source>
        <translation>新建作业(&amp;N)…</translation>
    </message>
    <message>
        <source>Log &amp;out</source>
        <translation>退出登录(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>DDL — %1 on %2</source>
        <translation>DDL — %1 @ %2</translation>
    </message>
    <message>
        <source>Logged in as %1</source>
        <translation>已登录为 %1</translation>
    </message>
    <message>
        <source>Your session has expired. Log in again.</source>
        <translation>会话已过期，请重新登录。</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Close job tab</source>
        <translation>关闭作业页(&amp;C)</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::MessageBar</name>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::MetricChartsView</name>
    <message>
        <source>No metrics yet. Print lines such as
DDL_METRIC {&quot;step&quot;: 10, &quot;loss&quot;: 0.25}
from your training code to see them here.</source>
        <translation>暂无指标。在训练代码中打印如下行
DDL_METRIC {&quot;step&quot;: 10, &quot;loss&quot;: 0.25}
即可在这里看到。</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Task: %1</source>
        <translation>任务：%1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::NavigationList</name>
    <message>
        <source>Open jobs</source>
        <translation>已打开的作业</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ProjectPage</name>
    <message>
        <source>Project folder</source>
        <translation>项目文件夹</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>The git repository with your main.py. DDL sends the code of its last commit.</source>
        <translation>包含 main.py 的 git 仓库。DDL 发送其最后一次提交的代码。</translation>
    </message>
    <message>
        <source>Optional: a git repository whose code the commands run in.</source>
        <translation>可选：命令在其中运行的 git 仓库。</translation>
    </message>
    <message>
        <source>Project folder:</source>
        <translation>项目文件夹：</translation>
    </message>
    <message>
        <source>%1 has errors; fix them (ddlcli submit reads the same file):
%2</source>
        <translation>%1 有错误；请修正（ddlcli submit 读取同一文件）：
%2</translation>
    </message>
    <message numerus="yes">
        <source>Read %1: job %2, %n task(s), dataset %3.</source>
        <translation>
            <numerusform>已读取 %1：作业 %2，%n 个任务，数据集 %3。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::PushImageDialog</name>
    <message>
        <source>Push an image</source>
        <translation>推送镜像</translation>
    </message>
    <message>
        <source>reading podman&apos;s images…</source>
        <translation>正在读取 podman 的镜像…</translation>
    </message>
    <message>
        <source>Push</source>
        <translation>推送</translation>
    </message>
    <message>
        <source>Local image:</source>
        <translation>本地镜像：</translation>
    </message>
    <message>
        <source>Name on the server: ddl://</source>
        <translation>服务器上的名称：ddl://</translation>
    </message>
    <message>
        <source>podman lists no image; build one first</source>
        <translation>podman 没有列出任何镜像；请先构建一个</translation>
    </message>
    <message>
        <source>Choose a local image or type its reference.</source>
        <translation>请选择本地镜像或输入其引用。</translation>
    </message>
    <message>
        <source>The name may have letters, digits and . _ - (at most 100), starting with a letter or digit.</source>
        <translation>名称可包含字母、数字和 . _ -（最多 100 个），并以字母或数字开头。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ResourcesPage</name>
    <message>
        <source>Resources</source>
        <translation>资源</translation>
    </message>
    <message>
        <source>What each task gets. The job starts when all its tasks fit at once.</source>
        <translation>每个任务获得的资源。当所有任务能同时放下时作业才开始。</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>Job name:</source>
        <translation>作业名称：</translation>
    </message>
    <message>
        <source>Tasks (workers):</source>
        <translation>任务数（worker）：</translation>
    </message>
    <message>
        <source>GPUs per task:</source>
        <translation>每个任务的 GPU：</translation>
    </message>
    <message>
        <source>CPUs per task:</source>
        <translation>每个任务的 CPU：</translation>
    </message>
    <message>
        <source>Memory per task:</source>
        <translation>每个任务的内存：</translation>
    </message>
    <message>
        <source>Retries:</source>
        <translation>重试次数：</translation>
    </message>
    <message>
        <source>for example: python3 train.py --epochs 10</source>
        <translation>例如：python3 train.py --epochs 10</translation>
    </message>
    <message>
        <source>not used: DDL calls main(dataset_dir, model_output_dir) in main.py</source>
        <translation>不使用：DDL 调用 main.py 中的 main(dataset_dir, model_output_dir)</translation>
    </message>
    <message>
        <source>DDL project: main() in main.py</source>
        <translation>DDL 项目：main.py 中的 main()</translation>
    </message>
    <message>
        <source>Command (as OpenPAI runs it)</source>
        <translation>命令（按 OpenPAI 的方式运行）</translation>
    </message>
    <message>
        <source>Runs:</source>
        <translation>运行：</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>A DDL project needs its folder: go back to the first page and choose it, or run a command instead.</source>
        <translation>DDL 项目需要其文件夹：请返回第一页选择它，或改为运行命令。</translation>
    </message>
    <message>
        <source>Write the command each task runs, or choose a DDL project.</source>
        <translation>请填写每个任务运行的命令，或选择 DDL 项目。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ReviewPage</name>
    <message>
        <source>Review</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>The job exactly as it is sent. Press Submit to start it.</source>
        <translation>这就是将要发送的作业。点击“提交”启动它。</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>提交</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::Session</name>
    <message>
        <source>%1 holds no PEM certificate. Choose the server&apos;s certificate (DATA_DIR/tls/server.crt) or its CA.</source>
        <translation>%1 中没有 PEM 证书。请选择服务器证书（DATA_DIR/tls/server.crt）或其 CA。</translation>
    </message>
    <message>
        <source>Connect to a server first.</source>
        <translation>请先连接到服务器。</translation>
    </message>
    <message>
        <source>An account for %1 exists already; log in instead.</source>
        <translation>%1 的账户已存在，请直接登录。</translation>
    </message>
    <message>
        <source>Your session has expired. Log in again.</source>
        <translation>会话已过期，请重新登录。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::StateTimeline</name>
    <message>
        <source>%1 at %2</source>
        <translation>%1于 %2</translation>
    </message>
    <message>
        <source>Running, attempt %1</source>
        <translation>运行中，第 %1 次尝试</translation>
    </message>
    <message>
        <source>%1 since %2 (%3 so far)</source>
        <translation>%1，自 %2 起（已 %3）</translation>
    </message>
    <message>
        <source>%1 from %2 to %3 (%4)</source>
        <translation>%1，%2 至 %3（%4）</translation>
    </message>
    <message>
        <source>Ended: %1</source>
        <translation>结束：%1</translation>
    </message>
    <message>
        <source>Running #%1</source>
        <translation>运行 #%1</translation>
    </message>
    <message>
        <source>Submitted %1</source>
        <translation>提交于 %1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::SubmitPageWidget</name>
    <message>
        <source>Cancel submission</source>
        <translation>取消提交</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>提交</translation>
    </message>
    <message>
        <source>Packaging the code and the dataset…</source>
        <translation>正在打包代码和数据集…</translation>
    </message>
    <message>
        <source>Uploading the code…</source>
        <translation>正在上传代码…</translation>
    </message>
    <message>
        <source>Uploading the dataset…</source>
        <translation>正在上传数据集…</translation>
    </message>
    <message>
        <source>Starting the job…</source>
        <translation>正在启动作业…</translation>
    </message>
    <message>
        <source>The job was not submitted: %1</source>
        <translation>作业未提交：%1</translation>
    </message>
    <message>
        <source>Job %1 submitted. It is in your job list.</source>
        <translation>作业 %1 已提交，可在作业列表中查看。</translation>
    </message>
    <message>
        <source>Reading the dataset…</source>
        <translation>正在读取数据集…</translation>
    </message>
    <message>
        <source>Resumed: %1 had been sent before.</source>
        <translation>已续传：之前已发送 %1。</translation>
    </message>
    <message>
        <source>Cancelled; nothing was submitted. Go back and submit again: the upload goes on where it stopped.</source>
        <translation>已取消，没有提交任何作业。返回后再次提交：上传会从中断处继续。</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::SubmitWizard</name>
    <message>
        <source>Submit a job</source>
        <translation>提交作业</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::TaskModel</name>
    <message>
        <source>%1 #%2</source>
        <translation>%1 #%2</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Index</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>退出码</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>尝试</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Ports</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>%1 (trust %2)</source>
        <translation>%1（信任度 %2）</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::TrayNotifier</name>
    <message>
        <source>DDL</source>
        <translation>DDL</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::UtilisationChartsView</name>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>% of one core</source>
        <translation>单核百分比</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>GPU utilisation</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <source>%1 GPU %2</source>
        <translation>%1 GPU %2</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>分钟</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>小时</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::WorkerModel</name>
    <message>
        <source>Online</source>
        <translation>在线</translation>
    </message>
    <message>
        <source>Lost</source>
        <translation>失联</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>CPUs</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Slots</source>
        <translation>槽位</translation>
    </message>
    <message>
        <source>Running tasks</source>
        <translation>运行中的任务</translation>
    </message>
    <message>
        <source>Last seen</source>
        <translation>最后在线</translation>
    </message>
    <message>
        <source>%1 (quarantined)</source>
        <translation>%1（已隔离）</translation>
    </message>
    <message>
        <source>%1 (unverified)</source>
        <translation>%1（未验证）</translation>
    </message>
    <message>
        <source>Trust</source>
        <translation>信任度</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::WorkersView</name>
    <message>
        <source>Workers</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <source>This server does not list its workers (it is older than this client).</source>
        <translation>此服务器不提供工作节点列表（服务器版本比客户端旧）。</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n worker(s) online, %2 GPUs</source>
        <translation>
            <numerusform>%n 个工作节点中 %1 个在线，共 %2 个 GPU</numerusform>
        </translation>
    </message>
    <message>
        <source>Select a worker to see its CPU, memory and GPU use.</source>
        <translation>选择一个工作节点以查看其 CPU、内存和 GPU 使用情况。</translation>
    </message>
    <message>
        <source>The server has no utilisation of this worker (it is older than this client, or the worker was removed).</source>
        <translation>服务器没有此工作节点的资源利用数据（它比此客户端旧，或该工作节点已被移除）。</translation>
    </message>
    <message>
        <source>No samples of %1 yet: a worker reports its CPU, memory and GPU use every few seconds while it is online.</source>
        <translation>尚无 %1 的采样：工作节点在线时每隔几秒报告其 CPU、内存和 GPU 使用情况。</translation>
    </message>
    <message>
        <source>%1 reports no GPU readings (no nvidia-smi, or GPUs declared with --gpus).</source>
        <translation>%1 未报告 GPU 读数（没有 nvidia-smi，或 GPU 通过 --gpus 声明）。</translation>
    </message>
    <message>
        <source>%1 reports no GPU.</source>
        <translation>%1 未报告 GPU。</translation>
    </message>
</context>
</TS>
